import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { request as httpRequest } from 'undici';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { IdvClient } from '../../verification/client/idv-client';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { type DevServer, startDevServer } from '../../workers/dev/temporal-dev-server';
import { createVerificationWorker } from '../../workers/verification-worker';
import { encryptingDataConverter } from '../../codec/data-converter';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { uniqueTaskQueue } from '../harness/worker';
import { openLocalStore } from '../../stores/local/local-store';
import { expectSummaryAttributes } from '../harness/summaries';
import { workerDeadline, workflowMetadata } from '../../cli/workflow-metadata';

// The server suggests continue-as-new at this history length (its default is thousands of
// events; a small value lets a test reach it in seconds).
const SUGGEST_AT = 60;
const EventType = temporal.api.enums.v1.EventType;

// A long session whose step refreshes often must not grow one history without bound: the
// workflow continues as new when the server suggests it, carrying the session along.
describe('verification history stays bounded', () => {
  let server: DevServer;
  let emulator: Emulator;
  let identity: IdentityClient;
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let worker: Worker;
  let running: Promise<void>;
  let dataDir: string;
  let idv: IdvClient;
  const taskQueue = uniqueTaskQueue('history');

  beforeAll(async () => {
    server = await startDevServer({
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_AT },
    });
    emulator = await startEmulator({ seed: 17 });
    identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-history-'));
    nativeConnection = await NativeConnection.connect({ address: server.address });
    connection = await Connection.connect({ address: server.address });
    worker = await createVerificationWorker({
      connection: nativeConnection,
      taskQueue,
      identity,
      store: await openLocalStore(dataDir),
      encryptionKeys: harnessEncryptionKeys(),
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
    });
    running = worker.run();
    const dataConverter = encryptingDataConverter(harnessEncryptionKeys());
    idv = new IdvClient({
      client: new Client({ connection, dataConverter }),
      store: await openLocalStore(dataDir),
      taskQueue,
    });
  }, 90_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await identity?.close();
    await emulator?.close();
    await connection?.close();
    await nativeConnection?.close();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const control = async (method: string, path: string, body?: unknown) => {
    const response = await httpRequest(`${emulator.controlUrl}${path}`, {
      method: method as 'PUT',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await response.body.dump();
  };

  it('continues as new when the server suggests it, keeping the session and its outcome', async () => {
    await control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 1 });
    const { handle, nextStep } = await idv.startVerification({
      reference: `history-${Date.now()}`,
      verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
      redactAfter: 'never',
    });
    const client = idv.client;
    const runs = async () => {
      const found: Array<{ runId: string; startedMs: number }> = [];
      for await (const run of client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
        found.push({ runId: run.runId, startedMs: run.startTime.getTime() });
      return found.sort((a, b) => a.startedMs - b.startedMs).map((run) => run.runId);
    };
    await eventually(
      async () => ((await runs()).length >= 3 ? true : undefined),
      'two continue-as-new',
      40_000,
    );
    const progress = await handle.progress();
    expect(progress).toMatchObject({ status: 'pending', sessionId: nextStep.sessionId });
    expect(progress.apiCalls.RefreshStepContent ?? 0).toBeGreaterThan(5);
    await control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await expect(handle.result()).resolves.toMatchObject({
      status: 'succeeded',
      sessionId: nextStep.sessionId,
    });
    const [firstRunId] = await runs();
    for (const runId of await runs()) {
      const run = client.workflow.getHandle(handle.workflowId, runId);
      const { events } = await run.fetchHistory();
      expect((events ?? []).length).toBeLessThan(SUGGEST_AT * 2);
      // Every run tells the operator what it is: the first by its summary, the ones continued as
      // new (which Temporal starts without one) by their current details.
      const summary = await (await run.describe()).staticSummary();
      const { currentDetails } = await run.query<{ currentDetails: string }>('__temporal_workflow_metadata');
      if (runId === firstRunId) expect(summary).toMatch(/^Verification history-\d+ · yoti · /);
      else
        expect(currentDetails).toMatch(
          /^Verification history-\d+ · yoti · .* {2}\n\*\*(pending|succeeded)\*\*/s,
        );
    }
    // idv describe shows a continued run's summary (its first run's) once, not again in its details.
    const last = client.workflow.getHandle(handle.workflowId);
    const shown = await workflowMetadata(client, last, await last.describe(), workerDeadline());
    expect(shown.summary).toMatch(/^Verification history-\d+ · yoti · /);
    expect(shown.currentDetails).toMatch(/^\*\*succeeded\*\*/);
    // Each run, continued ones too, keeps the summary as the search attribute the UI's list shows.
    await expectSummaryAttributes(client, `WorkflowId = '${handle.workflowId}'`);
    const first = await client.workflow.getHandle(handle.workflowId, firstRunId).fetchHistory();
    expect(first.events?.at(-1)?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
  }, 90_000);
  it('ends at its deadline while callers keep refreshing its step as it continues as new', async () => {
    await control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 300 });
    // Each refresh is answered 3 s late, and one is sent every half second: they overlap, so the
    // run never finds its handlers all finished unless it refuses new ones while it moves on.
    await control('PUT', '/faults', { operation: 'RefreshStepContent', latencyMs: 3_000 });
    const { handle, nextStep } = await idv.startVerification({
      reference: `history-refreshing-${Date.now()}`,
      verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
      redactAfter: 'never',
      timeout: '20s',
    });
    let ended = false;
    let refreshed = 0;
    const outcome = handle.result().finally(() => {
      ended = true;
    });
    const senders: Array<Promise<void>> = [];
    while (!ended) {
      senders.push(
        handle.refreshStep().then(
          () => void (refreshed += 1),
          () => undefined,
        ),
      );
      await new Promise<void>((resolve) => setTimeout(resolve, 500));
    }
    await Promise.all(senders);
    await control('DELETE', '/faults');
    await expect(outcome).resolves.toMatchObject({ status: 'timed-out', sessionId: nextStep.sessionId });
    expect(refreshed).toBeGreaterThan(0);
    const runs: string[] = [];
    for await (const run of idv.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
      runs.push(run.runId);
    // It did move on while refreshed (the history filled), and the last run ended the session.
    expect(runs.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
