import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { commands } from '../../cli/commands/index';
import { runCli } from '../../cli/run-cli';
import { startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { captureIo } from '../cli/capture-io';
// The worker's start and stop lines at INFO would bury what the check says; warnings still show.
import '../harness/quiet-runtime';

/**
 * `npm run check:ui`: what an operator sees in the Temporal web UI, checked in headless Chromium
 * (Debian's `chromium`, or `CHROMIUM_PATH`). It starts the embedded stack, runs a verification
 * with data, and checks from the pages themselves: the workflows list shows the verification; its
 * page shows the summary and current details and the payloads decoded through the codec server
 * (the person's data readable); after `idv redact`, the redaction marker instead of the person's
 * data. Screenshots go to `UI_CHECK_DIR` (a new temporary folder by default), printed at the end.
 */

const REFERENCE = `ui-check-${Date.now()}`;
const WORKFLOW_ID = `idv-${REFERENCE}`;
/** The emulator's test person (the default input's). */
const PERSON = 'Lovelace';
const REDACTED_MARKER = 'data key destroyed by the redaction';
const PAGE_WAIT_MS = 30_000;

class CheckFailed extends Error {}

let failedShotDir = tmpdir();

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

/** Waits until the page's visible text passes `check`; fails with what it showed last. */
async function waitForText(page: Page, what: string, check: (text: string) => boolean): Promise<string> {
  let text = '';
  try {
    const deadline = Date.now() + PAGE_WAIT_MS;
    for (;;) {
      text = await pageText(page);
      if (check(text)) return text;
      if (Date.now() > deadline) break;
      // The page fetches and decodes as it renders: look again once its requests have settled.
      await page.waitForNetworkIdle({ idleTime: 250, timeout: PAGE_WAIT_MS });
    }
  } catch (error) {
    if (!(error instanceof Error && error.name === 'TimeoutError')) throw error;
  }
  await page.screenshot({ path: join(failedShotDir, `failed-${Date.now()}.png`), fullPage: true });
  throw new CheckFailed(`${what}: not on the page ${page.url()}; it showed:\n${text.slice(0, 3000)}`);
}

async function main(): Promise<void> {
  const shots = process.env.UI_CHECK_DIR ?? (await mkdtemp(join(tmpdir(), 'idv-ui-check-')));
  await mkdir(shots, { recursive: true });
  failedShotDir = shots;
  const dataDir = await mkdtemp(join(tmpdir(), 'idv-ui-stack-'));
  const stack = await startEmbeddedStack({ dataDir, temporalPort: 0, uiPort: 0 });
  let browser: Browser | undefined;
  try {
    const env = { IDV_DATA_DIR: dataDir };
    const uiUrl = stack.info.temporalUiUrl;
    if (!uiUrl) throw new CheckFailed('the embedded stack runs no web UI');
    await idv(env, 'verify', '--reference', REFERENCE, '--results', 'data', '--redact-after', '1h', '--wait');

    browser = await puppeteer.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    const base = `${uiUrl}/namespaces/${stack.info.namespace}`;

    await page.goto(`${base}/workflows`, { waitUntil: 'networkidle2' });
    await waitForText(page, 'the verification in the workflows list', (text) => text.includes(WORKFLOW_ID));
    await page.screenshot({ path: join(shots, '1-workflows-list.png'), fullPage: true });

    await page.goto(`${base}/workflows/${WORKFLOW_ID}`, { waitUntil: 'networkidle2' });
    const before = await waitForText(page, 'the input and result decoded, the person readable', (text) =>
      text.includes(PERSON),
    );
    if (before.includes('binary/encrypted'))
      throw new CheckFailed('a payload is shown encrypted: the codec server did not decode it');
    await page.screenshot({ path: join(shots, '2-verification.png'), fullPage: true });
    await page.locator('::-p-text(User Metadata)').click();
    await waitForText(
      page,
      'the summary and the current details',
      (text) =>
        text.includes(`Verification ${REFERENCE} · `) &&
        /succeeded\W+ended/.test(text) &&
        text.includes('Redaction due: 20'),
    );
    await page.screenshot({ path: join(shots, '3-user-metadata.png'), fullPage: true });

    await idv(env, 'redact', REFERENCE);
    await page.goto(`${base}/workflows/${WORKFLOW_ID}`, { waitUntil: 'networkidle2' });
    await waitForText(
      page,
      'the redaction marker instead of the person',
      (text) => text.includes(REDACTED_MARKER) && !text.includes(PERSON),
    );
    await page.screenshot({ path: join(shots, '4-verification-redacted.png'), fullPage: true });
    process.stdout.write(`check:ui passed; screenshots in ${shots}\n`);
  } catch (error) {
    process.stdout.write(`check:ui failed; screenshots in ${shots}\n`);
    throw error;
  } finally {
    await browser?.close();
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`check:ui: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
