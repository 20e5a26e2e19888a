import { orphanSweepWorkflowId } from '../../verification/shared/ids';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IdvClient, VerificationNotStartedError } from '../../verification/client/idv-client';
import { eventually } from '../harness/eventually';
import { harnessEncryptionKeys } from '../harness/env';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';
import { openLocalStore } from '../../stores/local/local-store';
import { uniqueTaskQueue } from '../harness/worker';
import { startWorkerProcess, workerProcessEnv, type WorkerProcess } from '../harness/worker-process';
import { mobileRequest } from '../harness/requests';

// What the service answers is bounded and never trusted blindly: an unexpected create answer
// does not loop, oversized or lying results are refused or trimmed, and no answer's personal
// data reaches a log line. The worker runs as `idv worker` so its log output can be read.
describe('unexpected service answers, end to end', () => {
  const stack = useVerificationStack();
  let dataDir: string;
  let worker: WorkerProcess;
  let idv: IdvClient;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-answers-'));
    const taskQueue = uniqueTaskQueue('answers');
    worker = await startWorkerProcess(workerProcessEnv(stack().emulator, taskQueue, dataDir));
    idv = harnessIdvClient(stack().client, await openLocalStore(dataDir), taskQueue);
  });
  afterAll(async () => {
    await worker.kill();
    await rm(dataDir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input', latencyMs: 2_000 });
  });

  const created = () =>
    Number(stack().emulator.store.counters.byOperation.get('CreateDirectProviderSession') ?? 0);
  const sessionsSince = (before: Set<string>) =>
    [...stack().emulator.store.sessions.values()].filter((session) => !before.has(session.id));

  it('creates one session, not one per retry, when the create answer is unexpected; the sweep ends it', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      mergeBody: { sessionId: 'not-a-uuid' },
    });
    const before = new Set(stack().emulator.store.sessions.keys());
    const calls = created();
    const request = stack().request({ redactAfter: 'never' });
    await expect(idv.startVerification(request)).rejects.toBeInstanceOf(VerificationNotStartedError);
    // Asked by the verification's clean-up, which runs once the start has been told.
    const sweep = await eventually(
      () =>
        stack()
          .client.workflow.getHandle(orphanSweepWorkflowId(stack().profileId))
          .result()
          .catch(() => undefined),
      'the profile’s sweep to end',
      60_000,
    );
    expect(created() - calls).toBe(1);
    const [orphan, ...others] = sessionsSince(before);
    expect(others).toEqual([]);
    expect(sweep).toMatchObject({ swept: 1 });
    expect(orphan?.outcome).toMatchObject({ done: true, errorCode: 'Canceled' });
    expect(orphan?.redacted?.by).toBe('request');
  }, 90_000);

  it('refuses an attachment that lies about its size, and still redacts the session', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    await stack().control('PUT', '/faults', { operation: 'GetAttachment', mergeBody: { content: 'QUFB' } });
    const { handle, nextStep } = await idv.startVerification(
      stack().request({ results: 'data+attachments', redactAfter: '0s' }),
    );
    await expect(handle.result()).resolves.toMatchObject({
      status: 'failed',
      errorCode: 'ResultsUnavailable',
    });
    await stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`).result();
    const session = stack().emulator.store.sessions.get(nextStep.sessionId);
    expect(session?.redacted).toBeDefined();
    expect(session?.identity).toBeUndefined();
  }, 30_000);

  it('asks again for an attachment answered 404 (the interface defines none) alone, and delivers every result', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    // The second attachment is answered 404 once; the first, stored already, is not asked again.
    await stack().control('PUT', '/faults', {
      operation: 'GetAttachment',
      errorRate: 1,
      errorStatus: 404,
      skip: 1,
      count: 1,
    });
    const downloads = async () =>
      ((await stack().control('GET', '/counters')).byOperation as Record<string, number>).GetAttachment ?? 0;
    const before = await downloads();
    const { handle } = await idv.startVerification(
      stack().request({
        // Two attachments.
        ...mobileRequest,
        results: 'data+attachments',
        redactAfter: 'never',
        polling: { initialMs: 200, maxMs: 500 },
      }),
    );
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: 'succeeded' });
    expect(outcome.identity).toBeDefined();
    expect(outcome.attachments).toHaveLength(2);
    expect((await downloads()) - before).toBe(3);
  }, 30_000);

  it('keeps an oversized provider output out of the outcome, replaced by a marker', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    await stack().control('PUT', '/faults', {
      operation: 'GetSessionResult',
      mergeBody: { identityData: { providerOutput: { raw: 'x'.repeat(200_000) } } },
    });
    const { handle } = await idv.startVerification(
      stack().request({ results: 'data', redactAfter: 'never' }),
    );
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: 'succeeded', identity: { person: { familyName: 'Lovelace' } } });
    expect(outcome.identity?.providerOutput).toEqual({ omitted: 'too-large', sizeBytes: 200_010 });
  }, 30_000);

  it('writes no personal data of a malformed results answer to any log line or failure', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    await stack().control('PUT', '/faults', {
      operation: 'GetSessionResult',
      mergeBody: { identityData: { person: { familyName: 'Lovelace' }, attachments: 'Springfield' } },
    });
    const logged = worker.output().length;
    const { handle } = await idv.startVerification(
      stack().request({ results: 'data', redactAfter: 'never' }),
    );
    await expect(handle.result()).resolves.toMatchObject({
      status: 'failed',
      errorCode: 'ResultsUnavailable',
    });
    const history = JSON.stringify(await handle.workflow.fetchHistory());
    // The worker logs JSON lines: the activity failure's, with its error as a field.
    const logLine = () =>
      worker
        .output()
        .slice(logged)
        .split('\n')
        .find((line) => line.startsWith('{') && line.includes('"msg":"Activity failed"'));
    const output = await eventually(() => Promise.resolve(logLine()), 'the log line');
    // The failure was reported (so this test can see a leak)…
    expect(output).toMatch(/GetSessionResult/);
    expect(history).toMatch(/MalformedResponseError/);
    // …without the answer's text: no name, no document number.
    // (Payloads are bytes in this JSON: its text is the failures' messages and stack traces.)
    for (const text of [output, history]) {
      expect(text).not.toMatch(/Lovelace|Springfield|DriversLicense/);
    }
  }, 30_000);

  it("keeps a refusal that echoes the person's input out of the error and the failure", async () => {
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      errorRate: 1,
      errorStatus: 400,
      errorDetail: 'identityCode 123456 of Ada Lovelace is not in the register',
    });
    const request = stack().request({ redactAfter: 'never' });
    const error: unknown = await idv.startVerification(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerificationNotStartedError);
    expect((error as Error).message).toMatch(/CreateDirectProviderSession failed 400/);
    expect((error as Error).message).not.toMatch(/Lovelace|register/);
  }, 30_000);

  // Runs last: everything the worker wrote while this file ran (successes, malformed and failing
  // answers, refusals) holds no personal value and no secret.
  it('wrote no personal value or secret to its log over all of the above', () => {
    const secrets = new Set<string>([
      'Lovelace',
      'register',
      stack().emulator.apiKeys[0] ?? 'no api key',
      ...harnessEncryptionKeys().map((key) => key.key.toString('base64')),
    ]);
    for (const session of stack().emulator.store.sessions.values()) {
      secrets.add(session.resultsAccessKey);
      const person = (session.identity as { person?: Record<string, unknown> } | undefined)?.person;
      if (typeof person?.dateOfBirth === 'string') secrets.add(person.dateOfBirth);
    }
    const output = worker.output();
    // The worker did log failures (so a leak would be seen)…
    expect(output).toMatch(/Activity failed/);
    // …and none of these.
    for (const secret of secrets)
      expect({ secret, found: output.includes(secret) }).toEqual({ secret, found: false });
  });
});
