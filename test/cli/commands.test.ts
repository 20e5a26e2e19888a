import { ServiceError } from '@temporalio/client';
import { request } from 'undici';
import { emulatorControl } from '../../emulator/control-client';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commands } from '../../cli/commands/index';
import { runCli } from '../../cli/run-cli';
import { type EmbeddedStack, startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { resolveTemporalBinaries } from '../../workers/dev/temporal-binaries';
import { REDACTED_TEXT, SEALED_TEXT } from '../../codec/open-sealed-values';
import { harnessEnv, harnessValue } from '../harness/env';
import { uniqueTaskQueue } from '../harness/worker';
import { expectSummaryAttributes } from '../harness/summaries';
import { connectTemporal } from '../../cli/connect';
import { askWorker } from '../../cli/workflow-metadata';
import { startMetadata } from '../../common/user-metadata';
import { captureIo } from './capture-io';
import { eventually } from '../harness/eventually';
import { verificationLimits } from '../../verification/domain/verification-limits';

const execFileAsync = promisify(execFile);

// The `idv` commands against a running embedded stack (dev server, emulator, worker), as a user runs them.
describe('idv commands on the embedded stack', () => {
  let stack: EmbeddedStack;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-cli-'));
    stack = await startEmbeddedStack({
      dataDir,
      temporalPort: 0,
      uiPort: 0,
      taskQueue: uniqueTaskQueue('cli'),
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
    });
    env = { IDV_DATA_DIR: dataDir };
  });
  afterAll(async () => {
    await stack.stop();
    await rm(stack.dataDir, { recursive: true, force: true });
  });

  async function idv(...args: string[]) {
    const io = captureIo(env);
    const code = await runCli(args, commands, io);
    // Raw command output, read field by field.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const json = () => JSON.parse(io.out()) as Record<string, any>;
    return { code, out: io.out(), err: io.err(), json };
  }

  it('verify --json prints reference, workflow, session and next step, using the embedded defaults', async () => {
    const result = await idv('verify', '--reference', 'cli-json-1', '--redact-after', 'never', '--json');
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({
      reference: 'cli-json-1',
      workflowId: 'idv-cli-json-1',
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      nextStep: { method: 'None' },
    });
  });

  it('verify --wait --json follows to the outcome and exits 0 on success', async () => {
    const result = await idv(
      'verify',
      '--reference',
      'cli-wait-1',
      '--results',
      'data+attachments',
      '--redact-after',
      'never',
      '--wait',
      '--json',
    );
    expect(result.code).toBe(0);
    expect(result.json().outcome).toMatchObject({
      status: 'succeeded',
      attachments: [expect.objectContaining({ type: 'selfie' })],
    });
  });

  it('verify --wait exits 1 when the verification fails, and prints a summary without personal data', async () => {
    const result = await idv(
      'verify',
      '--reference',
      'cli-fail-1',
      '--input',
      'identityCode=000000',
      '--input',
      'givenName=Ada',
      '--input',
      'familyName=L',
      '--wait',
    );
    expect(result.code).toBe(1);
    expect(result.out).toContain('outcome: failed (Other)');
  });

  it("verify --return-via-receiver makes the redirect URL the stack receiver's tokened return, which sends the browser on to --final-url", async () => {
    const result = await idv(
      'verify',
      '--reference',
      'cli-return-1',
      '--return-via-receiver',
      '--final-url',
      'https://shop.example/done',
      '--redact-after',
      'never',
      '--json',
    );
    expect(result.code).toBe(0);
    const returnUrl = String(result.json().returnUrl);
    expect(returnUrl).toMatch(
      new RegExp(`^${stack.info.receiverUrl}/return/cli-return-1/[A-Za-z0-9_-]{43}$`),
    );
    const back = await request(returnUrl);
    await back.body.dump();
    expect([back.statusCode, back.headers.location]).toEqual([303, 'https://shop.example/done']);
    const untokened = await request(`${stack.info.receiverUrl}/return/cli-return-1`);
    await untokened.body.dump();
    expect(untokened.statusCode).toBe(404);
  });

  it("verify --input changes one field of the default input (the help's own example)", async () => {
    const result = await idv(
      'verify',
      '--reference',
      'cli-input-1',
      '--input',
      'identityCode=000000',
      '--wait',
    );
    // 000000 fails at the test provider: the other default fields (names) were still sent.
    expect(result.err).toBe('');
    expect(result.code).toBe(1);
    expect(result.out).toContain('outcome: failed (Other)');
  });

  describe('verify --input-file', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'idv-input-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    /** A provider input file holding `content`. */
    async function inputFile(name: string, content: string): Promise<string> {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    }

    /** `idv verify --wait --json` of `reference` with its input from the file at `path`. */
    const verifyFrom = (reference: string, path: string, ...more: string[]) =>
      idv('verify', '--reference', reference, '--input-file', path, ...more, '--wait', '--json');

    /** What the test provider says of the person: the names of its input. */
    function person(out: string): unknown {
      return (JSON.parse(out) as { outcome: { identity?: { person?: unknown } } }).outcome.identity?.person;
    }

    it("sends the file's fields as the provider input", async () => {
      const path = await inputFile(
        'grace.json',
        JSON.stringify({ identityCode: '123456', givenName: 'Grace', familyName: 'Hopper' }),
      );
      const result = await verifyFrom('cli-input-file-1', path);
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      expect(person(result.out)).toMatchObject({ givenName: 'Grace', familyName: 'Hopper' });
    });

    it("takes --input over the file's field, the file over the test provider's defaults", async () => {
      // 000000 fails at the test provider: success says --input's identityCode was sent.
      const path = await inputFile(
        'failing.json',
        JSON.stringify({ identityCode: '000000', givenName: 'Grace' }),
      );
      const result = await verifyFrom('cli-input-file-2', path, '--input', 'identityCode=123456');
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      expect(person(result.out)).toMatchObject({ givenName: 'Grace', familyName: 'Lovelace' });
    });

    it('reads standard input for -', async () => {
      const stdin = Readable.from([
        Buffer.from('{"identityCode": "123456", '),
        Buffer.from('"givenName": "Grace"}'),
      ]);
      const io = { ...captureIo(env), stdin };
      const args = ['verify', '--reference', 'cli-input-file-3', '--input-file', '-', '--wait', '--json'];
      await expect(runCli(args, commands, io)).resolves.toBe(0);
      expect(io.err()).toBe('');
      expect(person(io.out())).toMatchObject({ givenName: 'Grace', familyName: 'Lovelace' });
    });

    const limit = verificationLimits.providerInputBytes;
    const overLimit = (text: string) =>
      JSON.stringify({ identityCode: text.repeat(Math.ceil(limit / text.length)) });
    it.each([
      ['invalid JSON', '{"identityCode": "18151210", givenName: Ada}', 'is not JSON', '18151210'],
      ['a list', '["Ada Lovelace"]', 'must hold a JSON object of string fields, got an array', 'Lovelace'],
      [
        'a number',
        '{"identityCode": 18151210}',
        'must hold a JSON object of string fields, got a number in field #1',
        '18151210',
      ],
      [
        'a field named by the data',
        '{"Ada Lovelace": true}',
        'must hold a JSON object of string fields, got a boolean in field #1',
        'Lovelace',
      ],
      [
        'a file over the limit',
        overLimit('Ada Lovelace '),
        'is larger than 1 MiB, the limit of the provider input',
        'Lovelace',
      ],
    ])(
      'refuses %s before looking for a stack, in one line with exit 2 that holds none of the file',
      async (_case, content, problem, personal) => {
        const path = await inputFile('refused.json', content);
        const io = captureIo({ IDV_DATA_DIR: '/nonexistent-idv-data' });
        await expect(runCli(['verify', '--input-file', path], commands, io)).resolves.toBe(2);
        expect(io.err()).toBe(`idv: --input-file: ${path} ${problem}\n`);
        expect(io.err()).not.toContain(personal);
      },
    );

    it('refuses an --input entry without a key, without repeating it', async () => {
      const io = captureIo({ IDV_DATA_DIR: '/nonexistent-idv-data' });
      const args = ['verify', '--input', 'givenName=Ada', '--input', '18151210'];
      await expect(runCli(args, commands, io)).resolves.toBe(2);
      expect(io.err()).toBe("idv: --input takes key=value: the entry #2 has no key before '='\n");
    });

    it('names a file it cannot read and why', async () => {
      const path = join(dir, 'missing.json');
      const io = captureIo({ IDV_DATA_DIR: '/nonexistent-idv-data' });
      await expect(runCli(['verify', '--input-file', path], commands, io)).resolves.toBe(2);
      expect(io.err()).toBe(`idv: --input-file: cannot read ${path} (ENOENT)\n`);
    });

    it('stops reading standard input past the limit', async () => {
      const chunk = 'x'.repeat(65_536);
      const chunksToLimit = Math.ceil(limit / chunk.length);
      let pulled = 0;
      // Far past the limit: a reader that does not stop there pulls every chunk.
      function* chunks() {
        while (pulled < 64 * chunksToLimit) {
          pulled += 1;
          yield chunk;
        }
      }
      const stdin = Readable.from(chunks(), { highWaterMark: 1 });
      const io = { ...captureIo({ IDV_DATA_DIR: '/nonexistent-idv-data' }), stdin };
      await expect(runCli(['verify', '--input-file', '-'], commands, io)).resolves.toBe(2);
      expect(io.err()).toBe(
        'idv: --input-file: standard input is larger than 1 MiB, the limit of the provider input\n',
      );
      // What it read, and the stream's own read-ahead of a chunk or two.
      expect(pulled).toBeLessThan(chunksToLimit + 4);
    });
  });

  it('verify of an ended reference points to idv status', async () => {
    const result = await idv('verify', '--reference', 'cli-input-1');
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      'idv: verification cli-input-1 has already ended: see `idv status cli-input-1`, or start another --reference\n',
    );
  });

  it('list and providers print a header row over aligned columns', async () => {
    const listed = await idv('list', '--limit', '3');
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.out.trimEnd().split('\n');
    expect(header).toMatch(/^REFERENCE +STATUS +SESSION +STARTED$/);
    for (const row of rows) expect(row.indexOf(' ', 0)).toBeGreaterThan(0);
    const providers = await idv('providers');
    expect(providers.out.split('\n')[0]).toMatch(/^PROVIDER +LICENCE +LAUNCH\/COLLECTION +NAME$/);
    const statusColumn = (header ?? '').indexOf('STATUS');
    for (const row of rows) expect(row.slice(statusColumn - 2, statusColumn)).toBe('  ');
  });

  it.each([
    [['verify', 'stray'], "idv: unexpected argument 'stray' (see idv verify --help)\n"],
    [['list', '--limit', '0'], "idv: --limit must be at least 1, got '0'\n"],
    [['worker', 'now'], "idv: unexpected argument 'now' (see idv worker --help)\n"],
  ])('refuses %j in one line with exit 2', async (args, expected) => {
    const result = await idv(...args);
    expect(result.code).toBe(2);
    expect(result.err).toBe(expected);
  });

  it('describe shows the workflow, its history size and the outcome, the person only with --show-data', async () => {
    const plain = await idv('describe', 'cli-input-1', '--json');
    expect(plain.code).toBe(0);
    const view = plain.json();
    expect(view).toMatchObject({
      reference: 'cli-input-1',
      workflowStatus: 'COMPLETED',
      outcome: { status: 'failed' },
    });
    expect(view.historyEvents).toBeGreaterThan(5);
    const succeeded = await idv('verify', '--reference', 'cli-describe-1', '--redact-after', '1h', '--wait');
    expect(succeeded.code).toBe(0);
    const hidden = await idv('describe', 'cli-describe-1', '--json');
    expect(hidden.json().outcome.identity).toMatch(/^hidden \(fields: .*person/);
    expect(hidden.out).not.toContain('Lovelace');
    const shown = await idv('describe', 'cli-describe-1', '--show-data', '--json');
    expect(shown.out).toContain('Lovelace');
  });

  it('describe shows the summary and current details of a waiting, a succeeded and a redacted verification, never the person', async () => {
    // Words of the person's data that no id can hold (a digit run such as a year can: ids are hex).
    const person = /Lovelace|Springfield/;
    // The Temporal CLI reads the same through the codec server's view without the person.
    const token = (await readFile(join(stack.dataDir, 'codec-token'), 'utf8')).trim();
    const temporalDescribe = async (workflowId: string) =>
      (
        await execFileAsync(resolveTemporalBinaries().cli, [
          'workflow',
          'describe',
          '--address',
          stack.info.temporalAddress,
          '--namespace',
          stack.info.namespace,
          '-w',
          workflowId,
          '--codec-endpoint',
          `${stack.info.codecEndpoint ?? ''}/sealed`,
          '--codec-auth',
          `Bearer ${token}`,
        ])
      ).stdout;
    let waitingCli = '';
    await emulatorControl(stack.info.emulator?.controlUrl ?? '')('PUT', '/script', { outcome: 'manual' });
    let waiting;
    try {
      await idv('verify', '--reference', 'cli-meta-wait', '--json');
      waiting = await idv('describe', 'cli-meta-wait');
      waitingCli = await temporalDescribe('idv-cli-meta-wait');
    } finally {
      await emulatorControl(stack.info.emulator?.controlUrl ?? '')('PUT', '/script', { outcome: 'by-input' });
    }
    expect(waiting.code).toBe(0);
    expect(waiting.out).toContain('summary:   Verification cli-meta-wait · ');
    expect(waiting.out).toMatch(
      /now:\n {2}pending: waiting for the user \(\w+\); polling the session \(the pending pollSession makes the polls\)\n {2}Session: [0-9a-f-]{36}\n {2}Deadline: /,
    );
    await idv('cancel', 'cli-meta-wait');

    await idv(
      'verify',
      '--reference',
      'cli-meta-done',
      '--results',
      'data',
      '--redact-after',
      '1h',
      '--wait',
    );
    const done = await idv('describe', 'cli-meta-done', '--json');
    expect(done.json()).toMatchObject({
      summary: expect.stringMatching(/^Verification cli-meta-done · \S+ · profile /),
      details: expect.stringContaining('Personal data redacted: 1h after the ending'),
      currentDetails: expect.stringMatching(/^\*\*succeeded\*\*: ended {2}\n.*Redaction due: 20/s),
      // Started with the redaction's delay: no worker to ask yet, and said so at once.
      redaction: {
        workflowStatus: 'RUNNING',
        summary: expect.stringMatching(/^Redaction of verification cli-meta-done · session /),
        currentDetailsMissing: expect.stringMatching(/^its start is delayed until 20/),
      },
    });
    expect(done.out).not.toMatch(person);
    const doneCli = await temporalDescribe('idv-cli-meta-done');

    await idv('redact', 'cli-meta-done');
    const redacted = await idv('describe', 'cli-meta-done');
    expect(redacted.out).toMatch(
      /redaction: idv-redact-\S+ \(COMPLETED\)\n {2}summary: +Redaction of verification cli-meta-done · session \S+\n {2}details:\n(?: {4}.*\n)+ {2}now:\n {4}redacted at 20/,
    );
    expect(redacted.out).not.toMatch(person);

    const redactedCli = await temporalDescribe('idv-cli-meta-done');
    for (const [stdout, reference] of [
      [waitingCli, 'cli-meta-wait'],
      [doneCli, 'cli-meta-done'],
      [redactedCli, 'cli-meta-done'],
    ] as const) {
      expect(stdout).toMatch(new RegExp(`StaticSummary +"Verification ${reference} · `));
      expect(stdout).toMatch(/StaticDetails +"\*\*Verification\*\* of reference/);
      expect(stdout).not.toMatch(person);
    }
    // The person's data is there, sealed, until the redaction marks it gone.
    expect(doneCli).toContain(`"sealed":"${SEALED_TEXT}"`);
    expect(redactedCli).toContain(`"redacted":"${REDACTED_TEXT}"`);
  });

  /** A verification workflow no worker polls, through a command's connection. */
  async function unpolledVerification(reference: string) {
    const connected = await connectTemporal(env);
    const handle = await connected.idv.client.workflow.start('verificationSession', {
      taskQueue: uniqueTaskQueue('nobody-polls'),
      workflowId: `idv-${reference}`,
      args: [],
      ...startMetadata(`Verification ${reference}`, []),
    });
    return { connected, handle };
  }

  it('describe says no worker answered when none polls the verification', async () => {
    const { connected, handle } = await unpolledVerification('cli-no-worker');
    try {
      const described = await idv('describe', 'cli-no-worker');
      expect(described.code).toBe(0);
      expect(described.out).toContain('progress:  (no worker answered within 5 s)');
      expect(described.out).toContain('now:       (no worker answered within 5 s)');
    } finally {
      await handle.terminate('test over');
      await connected.close();
    }
  });

  it("a command's refused query is not retried past its deadline, and says it was refused", async () => {
    const { connected, handle } = await unpolledVerification('cli-refused-query');
    try {
      const description = await handle.describe();
      // While one query waits for a worker, the server refuses another to the same workflow
      // (RESOURCE_EXHAUSTED). The client's default backoff (1.7 s, then 2.9 s) would start its
      // second retry after a 2 s deadline and end with DEADLINE_EXCEEDED, as the waiting one
      // does; the commands' connection gives up before, with the refusal.
      const refusal = await eventually(async () => {
        const deadline = Date.now() + 2_000;
        const ask = () =>
          askWorker(connected.idv.client, description, () => handle.query('progress'), deadline);
        const answers = await Promise.all([ask(), ask()]);
        return answers.find((answer) => 'missing' in answer && answer.missing.includes('refused'));
      }, 'a refused query');
      expect(refusal).toEqual({ missing: expect.stringMatching(/^the server refused the query: \S/) });
    } finally {
      await handle.terminate('test over');
      await connected.close();
    }
  }, 60_000);

  it("a command's query that fails says the server's status, not only the client's wrapper", async () => {
    const { connected, handle } = await unpolledVerification('cli-failed-query');
    try {
      const description = await handle.describe();
      // As the client wraps a call's failure: its own words, the server's status as the cause.
      const status = Object.assign(new Error('14 UNAVAILABLE: no matching host'), {
        code: 14,
        details: 'no matching host',
        metadata: {},
      });
      const failing = () => Promise.reject(new ServiceError('Failed to query Workflow', { cause: status }));
      const answer = await askWorker(connected.idv.client, description, failing, Date.now() + 2_000);
      expect(answer).toEqual({
        missing: 'the query failed: Failed to query Workflow (gRPC status 14: no matching host)',
      });
    } finally {
      await handle.terminate('test over');
      await connected.close();
    }
  });

  // Of two queries cut at their deadline, one came back as gRPC's CANCELLED, not
  // DEADLINE_EXCEEDED (a CI run: "the query failed: … (gRPC status 1: Call cancelled)").
  it('a query cancelled once its deadline passed is a worker that did not answer in time', async () => {
    const { connected, handle } = await unpolledVerification('cli-cancelled-query');
    try {
      const description = await handle.describe();
      const deadline = Date.now() + 200;
      const cancelled = Object.assign(new Error('1 CANCELLED: Call cancelled'), {
        code: 1,
        details: 'Call cancelled',
        metadata: {},
      });
      // The call runs until its deadline and comes back cancelled, as the client ends it.
      const cutAtDeadline = () =>
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new ServiceError('Failed to query Workflow', { cause: cancelled })),
            deadline - Date.now() + 50,
          ),
        );
      expect(await askWorker(connected.idv.client, description, cutAtDeadline, deadline)).toEqual({
        missing: 'no worker answered within 5 s',
      });
    } finally {
      await handle.terminate('test over');
      await connected.close();
    }
  });

  it('emulator complete finishes a session as its user; redirect-captured checks at once', async () => {
    await emulatorControl(stack.info.emulator?.controlUrl ?? '')('PUT', '/script', { outcome: 'manual' });
    try {
      const started = await idv('verify', '--reference', 'cli-manual-1', '--json');
      const sessionId = started.json().sessionId as string;
      const completed = await idv('emulator', 'complete', sessionId);
      expect(completed).toMatchObject({
        code: 0,
        out: `session ${sessionId}: completed by the simulated user\n`,
      });
      const captured = await idv('redirect-captured', 'cli-manual-1');
      expect(captured).toMatchObject({ code: 0, out: 'cli-manual-1: checking now\n' });
      const watched = await idv('watch', 'cli-manual-1', '--json');
      expect(watched.code).toBe(0);
      expect(watched.json()).toMatchObject({ status: 'succeeded', sessionId });
      const failing = await idv('verify', '--reference', 'cli-manual-2', '--json');
      const failed = await idv(
        'emulator',
        'fail',
        failing.json().sessionId as string,
        '--error-code',
        'UserAbandoned',
      );
      expect(failed.code).toBe(0);
      expect((await idv('watch', 'cli-manual-2', '--json')).json()).toMatchObject({
        status: 'failed',
        errorCode: 'UserAbandoned',
      });
    } finally {
      await emulatorControl(stack.info.emulator?.controlUrl ?? '')('PUT', '/script', { outcome: 'by-input' });
    }
  });

  it('the step and challenge commands answer an ended verification in one line', async () => {
    expect(await idv('refresh-step', 'cli-manual-1')).toMatchObject({ code: 1 });
    expect((await idv('refresh-step', 'cli-manual-1')).err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(await idv('submit-challenge', 'cli-manual-1')).toMatchObject({
      code: 2,
      err: 'idv: idv submit-challenge needs --token T\n',
    });
    expect(await idv('submit-challenge', 'cli-manual-1', '--token', 't')).toMatchObject({ code: 1 });
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await idv('emulator', 'complete', unknown)).toMatchObject({
      code: 1,
      err: `idv: the emulator knows no session ${unknown}\n`,
    });
    expect(await idv('emulator', 'fail', 'not-an-id')).toMatchObject({
      code: 1,
      err: "idv: 'not-an-id' is not a session id\n",
    });
  });

  it('--output jsonl prints a list one object per line, json one document; --json is --output json', async () => {
    const lines = await idv('list', '--output', 'jsonl');
    expect(lines.code).toBe(0);
    const rows = lines.out.trimEnd().split('\n');
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(JSON.parse(row)).toHaveProperty('reference');
    const document = await idv('list', '-o', 'json');
    expect(JSON.parse(document.out)).toHaveLength(rows.length);
    expect((await idv('list', '--json')).out).toBe(document.out);
    expect(await idv('list', '--output', 'yaml')).toMatchObject({
      code: 2,
      err: "idv: --output must be one of table, json, jsonl, got 'yaml'\n",
    });
    expect(await idv('list', '--json', '--output', 'table')).toMatchObject({ code: 2 });
  });

  it('--version prints the package version', async () => {
    const result = await idv('--version');
    expect(result).toMatchObject({ code: 0, out: expect.stringMatching(/^idv \d+\.\d+\.\d+\n$/) });
  });

  it('status, cancel and watch address a verification by reference', async () => {
    stack.emulator.store.script = { ...stack.emulator.store.script, outcome: 'manual' };
    try {
      expect((await idv('verify', '--reference', 'cli-cancel-1', '--redact-after', 'never')).code).toBe(0);
      const status = await idv('status', 'cli-cancel-1', '--json');
      expect(status.json()).toMatchObject({ reference: 'cli-cancel-1', status: 'pending' });
      const cancelled = await idv('cancel', 'cli-cancel-1', '--reason', 'test', '--json');
      expect(cancelled.json()).toMatchObject({ status: 'cancelled' });
      const watched = await idv('watch', 'cli-cancel-1', '--json');
      expect(watched.code).toBe(1);
      expect(watched.json()).toMatchObject({ status: 'cancelled', errorCode: 'Canceled' });
      const again = await idv('cancel', 'cli-cancel-1');
      expect(again).toMatchObject({ code: 1, err: 'idv: verification cli-cancel-1 has already ended\n' });
    } finally {
      stack.emulator.store.script = { ...stack.emulator.store.script, outcome: 'by-input' };
    }
  });

  it('redact removes the data now', async () => {
    await idv('verify', '--reference', 'cli-redact-1', '--redact-after', 'never', '--wait');
    const result = await idv('redact', 'cli-redact-1', '--json');
    expect(result.code).toBe(0);
    const session = stack.emulator.store.sessions.get(String(result.json().sessionId));
    expect(session?.redacted?.by).toBe('request');
  });

  it('keyring rotate says which rotation erases the keys erased before it: one started after it, completed', async () => {
    await idv('verify', '--reference', 'cli-rotate-1', '--redact-after', 'never');
    const before = Date.now();
    const asked = await idv('keyring', 'rotate', '--json');
    expect(asked.code).toBe(0);
    expect(Date.parse(String(asked.json().requestedAt))).toBeGreaterThanOrEqual(before);
    const plain = await idv('keyring', 'rotate');
    expect(plain.out).toMatch(
      /erased before \S+ \(this machine's clock\) are gone .* once `idv keyring` shows a last rotation started after that time and completed, and its earlier runs deleted/,
    );
  });

  it('list finds verifications by status', async () => {
    const result = await idv('list', '--status', 'succeeded', '--json');
    expect(result.code).toBe(0);
    expect(Array.isArray(result.json())).toBe(true);
  });

  it('providers and redirect-uris talk to the emulator', async () => {
    const providers = await idv('providers', '--licensed', '--json');
    expect((providers.json() as unknown as Array<{ id: string }>).map((p) => p.id)).toContain(
      'trinsic-test-database-lookup',
    );
    const added = await idv('redirect-uris', 'add', 'https://app.example/*', '--json');
    const id = String(added.json().id);
    const listed = await idv('redirect-uris', 'list', '--json');
    expect(listed.json()).toEqual(expect.arrayContaining([{ id, uri: 'https://app.example/*' }]));
    expect((await idv('redirect-uris', 'delete', id)).code).toBe(0);
    const relative = await idv('redirect-uris', 'add', '/relative');
    expect(relative).toMatchObject({ code: 1, err: expect.stringContaining('uri: must be an absolute URI') });
  });

  it('webhooks manages a tenant through its registry, and the receiver takes its events', async () => {
    const added = await idv('webhooks', 'add', '--tenant', 'tenant-1', '--json');
    expect(added.code).toBe(0);
    const { id, url } = added.json();
    expect(url).toBe(`${stack.info.receiverUrl}/agent/tenant-1/****`);
    const listed = await idv('webhooks', 'list', '--tenant', 'tenant-1');
    expect(listed.out).toContain(`${String(id)}  enabled   Notification  receiver  ${String(url)}`);
    const delivered = await fetch(`${stack.info.emulator?.controlUrl}/agent-events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tenant: 'tenant-1',
        message_type: 'new_connection',
        object_id: 'o-1',
        connection_id: 'c-1',
      }),
    });
    expect(await delivered.json()).toEqual({ deliveries: [expect.objectContaining({ status: 200 })] });
    expect((await idv('webhooks', 'disable', String(id), '--tenant', 'tenant-1')).out).toContain('disabled');
    expect(
      (await idv('webhooks', 'delete', String(id), '--tenant', 'tenant-1', '--json')).json(),
    ).toMatchObject({
      webhooks: [],
    });
    const refused = await idv('webhooks', 'add', '--tenant', 'tenant-1', '--url', 'ftp://hooks.example');
    expect(refused).toMatchObject({ code: 2, err: 'idv: --url: url must be an absolute http(s) URL\n' });
  });

  it('webhooks list says when the registry cannot reach the platform for a tenant, and exits 1', async () => {
    const listed = await idv('webhooks', 'list', '--tenant', 'tenant-without-key');
    expect(listed.code).toBe(1);
    expect(listed.out).toContain('no key of the earlier platform for tenant tenant-without-key');
  });

  it('migrate: a dry run, then --apply, then --apply again changes nothing', async () => {
    const added = await idv('webhooks', 'add', '--tenant', 'tenant-1', '--json');
    const webhookId = String(added.json().id);
    const dry = await idv('migrate', '--tenant', 'tenant-1');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('Migration of tenant-1 (dry run: nothing changed): planned');
    expect(dry.out).toContain(`register   ${stack.info.receiverUrl}/verified/tenant-1/employee-check`);
    expect(dry.out).toContain(`disable          ${webhookId}`);
    const applied = await idv('migrate', '--tenant', 'tenant-1', '--apply', '--json');
    expect(applied.code).toBe(0);
    expect(applied.json()).toMatchObject({
      outcome: 'applied',
      redirectUris: [{ action: 'registered' }],
      webhooks: [{ id: webhookId, action: 'disabled' }],
    });
    const again = await idv('migrate', '--tenant', 'tenant-1', '--apply');
    expect(again.out).toContain('(applied): unchanged');
    const mappingFile = join(stack.dataDir, 'bad-mapping.json');
    await writeFile(mappingFile, JSON.stringify({ birthdate: 'date' }));
    const badMapping = await idv('migrate', '--tenant', 'tenant-1', '--mapping', mappingFile);
    expect(badMapping).toMatchObject({
      code: 2,
      err: `idv: --mapping: ${mappingFile} must be an object of attribute name → string | number | boolean | datetime\n`,
    });
    expect((await idv('webhooks', 'delete', webhookId, '--tenant', 'tenant-1')).code).toBe(0);
  });

  it('webhooks --drift-policy sets the policy of a registry it starts', async () => {
    const listed = await idv(
      'webhooks',
      'list',
      '--tenant',
      'tenant-adopting',
      '--drift-policy',
      'adopt',
      '--json',
    );
    expect(listed.json()).toMatchObject({ tenant: 'tenant-adopting', driftPolicy: 'adopt' });
  });

  it.each([
    [['migrate'], 'idv: idv migrate needs --tenant T\n'],
    [
      ['migrate', '--tenant', 't', '--redirect-uri', 'relative/{policy}'],
      'idv: --redirect-uri must be an absolute https URL (http only for localhost)\n',
    ],
    [
      ['migrate', '--tenant', 't', '--mapping', '/no/such/file.json'],
      expect.stringContaining('--mapping: cannot read'),
    ],
    [['webhooks', 'list'], 'idv: idv webhooks needs --tenant T\n'],
    [['webhooks', 'rename', '--tenant', 't'], expect.stringContaining('idv webhooks needs list, add')],
    [['webhooks', 'enable', '--tenant', 't'], 'idv: idv webhooks enable needs <id>\n'],
    [['webhooks', 'list', 'extra', '--tenant', 't'], "idv: unexpected argument 'extra'\n"],
    [['webhooks', 'list', '--tenant', 'a b'], expect.stringContaining('--tenant: tenant may contain only')],
    [
      ['webhooks', 'add', '--tenant', 't', '--drift-policy', 'ignore'],
      "idv: --drift-policy must be one of repair, adopt, got 'ignore'\n",
    ],
    [
      ['verify', '--results', 'everything'],
      "idv: --results must be one of none, data, data+attachments, got 'everything'\n",
    ],
    [
      ['verify', '--capability', 'Teleport'],
      expect.stringContaining("--capability 'Teleport' is not one of"),
    ],
    [['verify', '--reference', 'ada@example.com'], expect.stringContaining('must not be an email address')],
    [['verify', '--timeout', 'soon'], expect.stringContaining('timeout must be a duration')],
    [
      ['verify', '--return-via-receiver', '--redirect-url', 'https://app.example/back'],
      'idv: give --redirect-url or --return-via-receiver, not both\n',
    ],
    [['status'], 'idv: idv status needs a <reference> (see idv status --help)\n'],
    [['redirect-uris', 'rename'], 'idv: idv redirect-uris needs list, add <uri> or delete <id>\n'],
  ])('answers the usage mistake %j with one line and exit 2', async (args, message) => {
    const result = await idv(...args);
    expect(result.code).toBe(2);
    expect(result.err).toEqual(message);
  });

  it('answers an unknown reference with one line and exit 1', async () => {
    expect(await idv('status', 'no-such-reference')).toMatchObject({
      code: 1,
      err: "idv: no verification with reference 'no-such-reference'\n",
    });
  });

  it('verify --help documents every option', async () => {
    const result = await idv('verify', '--help');
    for (const option of [
      '--profile',
      '--provider',
      '--capability',
      '--fallback',
      '--redirect-url',
      '--return-via-receiver',
      '--final-url',
      '--input-file',
      '--input',
      '--reference',
      '--timeout',
      '--redact-after',
      '--results',
      '--wait',
      '--json',
    ]) {
      expect(result.out).toContain(option);
    }
  });

  // Last: it reads what every test above started on this stack.
  it("gives every workflow it started its summary as the search attribute the UI's list shows", async () => {
    const connected = await connectTemporal(env);
    try {
      const types = await expectSummaryAttributes(connected.idv.client, 'WorkflowId STARTS_WITH "idv-"');
      expect([...types]).toEqual(
        expect.arrayContaining(['verificationSession', 'sessionRedaction', 'agentConnection']),
      );
    } finally {
      await connected.close();
    }
  });
});

describe('idv commands without a stack', () => {
  it('explain how to start one, in one line with exit 1', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-empty-'));
    const io = captureIo({ IDV_DATA_DIR: dataDir });
    await expect(runCli(['status', 'x-1'], commands, io)).resolves.toBe(1);
    expect(io.err()).toBe(
      `idv: no running stack in ${dataDir}: start \`idv dev\`, or set TEMPORAL_ADDRESS\n`,
    );
    await rm(dataDir, { recursive: true, force: true });
  });

  it('verify --return-via-receiver says which variables name the receiver, in one line with exit 1', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-empty-'));
    const io = captureIo({
      IDV_DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: harnessValue(harnessEnv.temporalAddress),
      IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
    });
    const args = ['verify', '--return-via-receiver', '--profile', randomUUID(), '--provider', 'p'];
    await expect(runCli([...args, '--capability', 'PollResult'], commands, io)).resolves.toBe(1);
    expect(io.err()).toBe(
      'idv: --return-via-receiver needs the receiver: set IDV_RECEIVER_URL and IDV_RECEIVER_SECRET, or start `idv dev`\n',
    );
    await rm(dataDir, { recursive: true, force: true });
  });

  it.each([
    [
      ['verify', '--reference', 'ada@example.com'],
      'idv: --reference may contain only letters, digits, . _ : and -; must not be an email address',
    ],
    [['verify', '--final-url', 'ftp://example.com'], 'idv: --final-url must be an absolute http(s) URL\n'],
    [['verify', '--capability', 'Teleport'], "idv: --capability 'Teleport' is not one of"],
    [['verify', '--provider', 'yoti'], 'idv: --capability is required for this provider'],
    [
      ['webhooks', 'add', '--tenant', 't', '--url', 'ftp://example.com'],
      'idv: --url: url must be an absolute http(s) URL\n',
    ],
  ])('refuse %j before looking for one, in one line with exit 2', async (args, message) => {
    const io = captureIo({ IDV_DATA_DIR: '/nonexistent-idv-data' });
    await expect(runCli(args, commands, io)).resolves.toBe(2);
    expect(io.err()).toContain(message);
    expect(io.err().trimEnd().split('\n')).toHaveLength(1);
  });

  it.each([['--latency-ms'], ['--slow-body-ms']])(
    'refuse emulator %s longer than a timer holds, before starting it',
    async (option) => {
      const io = captureIo({}, Promise.resolve('SIGINT'));
      await expect(runCli(['emulator', option, '2147483648'], commands, io)).resolves.toBe(2);
      expect(io.err()).toBe(`idv: ${option} must be a number from 0 to 2147483647, got '2147483648'\n`);
    },
  );

  it('name the variable of an invalid configuration', async () => {
    const io = captureIo({ IDV_REGION: 'mars' });
    await expect(runCli(['providers'], commands, io)).resolves.toBe(1);
    expect(io.err()).toMatch(/^idv: IDV_REGION .*\(got 'mars'\)\n$/);
  });
});
