import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { commands } from '../../cli/commands/index';
import { runCli } from '../../cli/run-cli';
import { startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { captureIo } from '../cli/capture-io';
import { ENCRYPTED_ENCODING } from '../../codec/aes-gcm-codec';
import { REDACTED_TEXT } from '../../codec/open-sealed-values';
import { IdvSummary } from '../../common/search-attributes';
// The worker's start and stop lines at INFO would bury what the check says; warnings still show.
import '../harness/quiet-runtime';

/**
 * `npm run check:ui`: what an operator sees in the Temporal web UI, checked in headless Chromium
 * (Debian's `chromium`, or `CHROMIUM_PATH`). It starts the embedded stack, runs a verification
 * with data, and checks from the pages themselves: the workflows list shows the verification and,
 * with the `IdvSummary` column added as an operator adds it, its summary; its page shows the
 * summary and current details and the payloads decoded through the codec server (the person's
 * data readable); after `idv redact`, the redaction marker instead of the person's data. Screenshots go to `UI_CHECK_DIR` (a new temporary folder by default), printed at the end.
 */

const REFERENCE = `ui-check-${Date.now()}`;
const WORKFLOW_ID = `idv-${REFERENCE}`;
/** The emulator's test person (the default input's). */
const PERSON = 'Lovelace';
const PAGE_WAIT_MS = 30_000;
/** The whole check's bound: it stops and cleans up past it. */
const CHECK_LIMIT_MS = 5 * 60_000;

class CheckFailed extends Error {}

function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim();
    } catch {
      // not this one
    }
  }
  throw new CheckFailed("no Chromium found: install Debian's `chromium` or set CHROMIUM_PATH");
}

async function idv(env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  const io = captureIo(env);
  const code = await runCli(args, commands, io);
  if (code !== 0) throw new CheckFailed(`idv ${args.join(' ')} exited ${code}: ${io.err()}`);
  return io.out();
}

/** What the page scripts read of the browser (the project is typed without the DOM's types). */
interface BrowserGlobals {
  document: { body: { innerText: string } | null };
}

/** The visible text of the page and its frames (the UI renders Markdown details in frames). */
async function pageText(page: Page): Promise<string> {
  const texts = await Promise.all(
    page
      .frames()
      .map((frame) =>
        frame
          .evaluate(() => (globalThis as unknown as BrowserGlobals).document.body?.innerText ?? '')
          .catch(() => ''),
      ),
  );
  return texts.join('\n');
}

/**
 * Waits until the page's visible text passes `check`, loading the page again after each look that
 * fails (what it shows may come late: visibility, decoding); fails with what it showed last.
 */
async function waitForText(page: Page, what: string, check: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + PAGE_WAIT_MS;
  let text = '';
  for (;;) {
    text = await pageText(page);
    if (check(text)) return text;
    const left = deadline - Date.now();
    if (left <= 0) break;
    // A reload that does not settle in time is one more look that failed, not a different error.
    await page.reload({ waitUntil: 'networkidle2', timeout: left }).catch(() => undefined);
  }
  throw new CheckFailed(`${what}: not on the page ${page.url()}; it showed:\n${text.slice(0, 3000)}`);
}

/** Clicks the element of `testId` once it is visible and still (a drawer slides in). */
async function clickOn(page: Page, what: string, testId: string): Promise<void> {
  try {
    await page.locator(`[data-testid="${testId}"]`).setTimeout(PAGE_WAIT_MS).click();
  } catch (error) {
    throw new CheckFailed(`${what} (${testId}): ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The check. An abort (its time limit) stops the browser and the stack, so whatever step waits
 * fails at once and the clean-up runs; a failure leaves a screenshot of the page it was on.
 */
async function check(shots: string, signal: AbortSignal): Promise<void> {
  const executablePath = chromiumPath();
  const dataDir = await mkdtemp(join(tmpdir(), 'idv-ui-stack-'));
  const stack = await startEmbeddedStack({ dataDir, temporalPort: 0, uiPort: 0 });
  let browser: Browser | undefined;
  let tab: Page | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= Promise.all([browser?.close(), stack.stop()]).then(() => undefined));
  signal.addEventListener('abort', () => void stop().catch(() => undefined), { once: true });
  try {
    const env = { IDV_DATA_DIR: dataDir };
    const uiUrl = stack.info.temporalUiUrl;
    if (!uiUrl) throw new CheckFailed('the embedded stack runs no web UI');
    await idv(env, 'verify', '--reference', REFERENCE, '--results', 'data', '--redact-after', '1h', '--wait');

    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    tab = await browser.newPage();
    // Wide enough for the list's columns up to the summary's, which the UI adds last.
    await tab.setViewport({ width: 2600, height: 1000 });
    const base = `${uiUrl}/namespaces/${stack.info.namespace}`;

    await tab.goto(`${base}/workflows`, { waitUntil: 'networkidle2' });
    await waitForText(tab, 'the verification in the workflows list', (text) => text.includes(WORKFLOW_ID));
    // The list shows user metadata nowhere; an operator adds the summary's search attribute as a
    // column once (the UI keeps its columns in the browser).
    await clickOn(tab, 'the button that configures columns', 'workflows-summary-table-configuration-button');
    await clickOn(
      tab,
      `the button that adds ${IdvSummary.name}`,
      `orderable-list-item-${IdvSummary.name}-add-button`,
    );
    // Loaded again: the drawer closed, the column kept.
    await tab.reload({ waitUntil: 'networkidle2' });
    await waitForText(tab, 'the summary in the workflows list', (text) =>
      text.includes(`Verification ${REFERENCE} · `),
    );
    await tab.screenshot({ path: join(shots, '1-workflows-list.png'), fullPage: true });

    await tab.goto(`${base}/workflows/${WORKFLOW_ID}`, { waitUntil: 'networkidle2' });
    const before = await waitForText(tab, 'the input and result decoded, the person readable', (text) =>
      text.includes(PERSON),
    );
    if (before.includes(ENCRYPTED_ENCODING))
      throw new CheckFailed('a payload is shown encrypted: the codec server did not decode it');
    await tab.screenshot({ path: join(shots, '2-verification.png'), fullPage: true });
    // The run's own address: its tabs are paths below it.
    const run = tab.url().replace(/\/[^/]*$/, '');
    await tab.goto(`${run}/user-metadata`, { waitUntil: 'networkidle2' });
    await waitForText(
      tab,
      'the summary and the current details',
      (text) =>
        text.includes(`Verification ${REFERENCE} · `) &&
        /succeeded\W+ended/.test(text) &&
        text.includes('Redaction due: 20'),
    );
    await tab.screenshot({ path: join(shots, '3-user-metadata.png'), fullPage: true });

    await idv(env, 'redact', REFERENCE);
    for (const [view, shot] of [
      ['', '4-verification-redacted.png'],
      ['/history', '5-history-redacted.png'],
    ] as const) {
      await tab.goto(`${view ? run : `${base}/workflows/${WORKFLOW_ID}`}${view}`, {
        waitUntil: 'networkidle2',
      });
      await waitForText(
        tab,
        `the redaction marker instead of the person${view ? ' in the event history' : ''}`,
        (text) => text.includes(REDACTED_TEXT) && !text.includes(PERSON),
      );
      await tab.screenshot({ path: join(shots, shot), fullPage: true });
    }
  } catch (error) {
    await tab?.screenshot({ path: join(shots, 'failed.png'), fullPage: true }).catch(() => undefined);
    throw signal.aborted ? new CheckFailed(`gave up after ${CHECK_LIMIT_MS / 60_000} minutes`) : error;
  } finally {
    await stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const shots = process.env.UI_CHECK_DIR ?? (await mkdtemp(join(tmpdir(), 'idv-ui-check-')));
  await mkdir(shots, { recursive: true });
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), CHECK_LIMIT_MS);
  try {
    await check(shots, limit.signal);
    process.stdout.write(`check:ui passed; screenshots in ${shots}\n`);
  } catch (error) {
    process.stdout.write(`check:ui failed; screenshots in ${shots}\n`);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`check:ui: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
