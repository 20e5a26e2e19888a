// bench/sessions: N concurrent verifications against the emulator (users finish after a random
// delay), with our adaptive polling, fixed 2-second polling, and a bare one-activity workflow.
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../workers/activities';
import { createIdentityClient } from '../../api/identity/identity-client';
import { IdvClient } from '../../verification/client/idv-client';
import { prepareVerificationInput } from '../../verification/client/prepare-input';
import { DataKeys } from '../../codec/data-keys';
import { TemporalKeyring } from '../../keyring/client';
import { type VerificationRequest } from '../../verification/domain/verification';
import { openLocalStore } from '../../stores/local/local-store';
import { startDevServer } from '../../workers/dev/temporal-dev-server';
import { runtimeLogger, runtimeOptions } from '../../workers/logging';
import { spawnEmulator } from '../support/emulator-process';
import { recordSection } from '../support/record';
import { round, summarise } from '../support/stats';
import { promoteBuild } from '../../workers/deployment';
import { versionedWorker, workerDeployment } from '../../workers/deployment-settings';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200);
const LATENCY = {
  min: Number(process.env.BENCH_LATENCY_MIN_MS ?? 5_000),
  max: Number(process.env.BENCH_LATENCY_MAX_MS ?? 60_000),
};

interface VariantResult {
  name: string;
  seconds: number;
  sessionsPerSecond: number;
  apiCallsPerSession: number;
  delayP50: number;
  delayP99: number;
  historyEvents: number;
  peakRssMiB: number;
}

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('WARN'));
  const server = await startDevServer({});
  const emulator = await spawnEmulator(['--seed', '7']);
  const { baseUrl, apiKeys, verificationProfiles, controlUrl } = emulator.info;
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${controlUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  };
  await control('PUT', '/script', { latencyMinMs: LATENCY.min, latencyMaxMs: LATENCY.max });
  const dataDir = await mkdtemp(join(tmpdir(), 'idv-bench-'));
  const identity = createIdentityClient({ baseUrl, apiKey: apiKeys[0] ?? '', budget: 'unlimited' });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    logger: runtimeLogger('ERROR'),
  });
  // Payloads are not encrypted here (as before the codec, for comparable figures); data keys are.
  const store = await openLocalStore(dataDir);
  const taskQueue = 'bench-sessions';
  const dataKeys = new DataKeys(store.dataKeys, new TemporalKeyring({ client, taskQueue }));
  const activities = {
    ...createActivities({
      identity,
      vault: store.vault,
      blobs: store.blobs,
      records: store.records,
      dataKeys,
    }),
    noop: () => Promise.resolve(),
  };
  const worker = await Worker.create({
    ...versionedWorker(workerDeployment(taskQueue)),
    connection: nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities,
    maxConcurrentActivityTaskExecutions: 1_000,
  });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const idv = new IdvClient({ client, store, taskQueue });
  const request = (variant: string, i: number): VerificationRequest => ({
    reference: `bench-${variant}-${Date.now()}-${i}`,
    verificationProfileId: verificationProfiles[0]?.id ?? '',
    provider: 'trinsic-test-database-lookup',
    capabilities: ['PollResult'],
    providerInput: {
      'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode: '123456' },
    },
    redactAfter: 'never',
  });
  const apiCalls = async () => {
    const counters = (await control('GET', '/counters')).byOperation as Record<string, number>;
    return Object.values(counters).reduce((sum, n) => sum + n, 0);
  };
  const userDoneAt = async (sessionId: string) =>
    Date.parse(String((await control('GET', `/sessions/${sessionId}`)).userCompletesAt));
  const historyLength = async (workflowId: string) =>
    (await client.workflow.getHandle(workflowId).fetchHistory()).events?.length ?? 0;

  const results: VariantResult[] = [];
  const measure = async (name: string, run: () => Promise<{ delays: number[]; workflowIds: string[] }>) => {
    await control('DELETE', '/counters');
    peakRss = process.memoryUsage().rss;
    const started = Date.now();
    const { delays, workflowIds } = await run();
    const seconds = (Date.now() - started) / 1000;
    const calls = await apiCalls();
    const sample = workflowIds.slice(0, 20);
    const events =
      (await Promise.all(sample.map(historyLength))).reduce((a, b) => a + b, 0) / Math.max(1, sample.length);
    const { p50, p99 } = delays.length ? summarise(delays) : { p50: Number.NaN, p99: Number.NaN };
    results.push({
      name,
      seconds,
      sessionsPerSecond: workflowIds.length / seconds,
      apiCallsPerSession: calls / workflowIds.length,
      delayP50: p50,
      delayP99: p99,
      historyEvents: events,
      peakRssMiB: peakRss / 2 ** 20,
    });
    process.stderr.write(`${name}: done in ${round(seconds)} s\n`);
  };

  await promoteBuild(client, workerDeployment(taskQueue), { onlyIfNone: true, beforePolling: true });
  await worker.runUntil(async () => {
    await measure('adaptive polling (verificationSession)', async () => {
      const runs = await Promise.all(
        Array.from({ length: SESSIONS }, async (_, i) => {
          const { handle, nextStep } = await idv.startVerification(request('adaptive', i));
          await handle.result();
          const progress = await handle.progress();
          return {
            workflowId: handle.workflowId,
            delay: Date.parse(progress.updatedAt) - (await userDoneAt(nextStep.sessionId)),
          };
        }),
      );
      return { delays: runs.map((r) => r.delay), workflowIds: runs.map((r) => r.workflowId) };
    });
    await measure('fixed 2 s polling (service samples)', async () => {
      const runs = await Promise.all(
        Array.from({ length: SESSIONS }, async (_, i) => {
          const input = await prepareVerificationInput(request('fixed', i), dataKeys);
          const handle = await client.workflow.start('fixedPollingSession', {
            taskQueue,
            workflowId: `idv-${input.reference}`,
            args: [input],
          });
          const result = (await handle.result()) as { knownAt: number; sessionId: string };
          return { workflowId: handle.workflowId, knownAt: result.knownAt, sessionId: result.sessionId };
        }),
      );
      const delays: number[] = [];
      for (const run of runs) if (run.sessionId) delays.push(run.knownAt - (await userDoneAt(run.sessionId)));
      return { delays, workflowIds: runs.map((r) => r.workflowId) };
    });
    await measure('bare one-activity workflow (ceiling)', async () => {
      const ids = await Promise.all(
        Array.from({ length: SESSIONS }, async (_, i) => {
          const workflowId = `bench-bare-${Date.now()}-${i}`;
          await client.workflow.execute('bareWorkflow', { taskQueue, workflowId });
          return workflowId;
        }),
      );
      return { delays: [], workflowIds: ids };
    });
  });
  clearInterval(sampler);
  await identity.close();
  await connection.close();
  await nativeConnection.close();
  await emulator.stop();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });

  const [ours, fixed, bare] = results as [VariantResult, VariantResult, VariantResult];
  const cell = (n: number) => (Number.isNaN(n) ? '–' : String(round(n)));
  const markdown = [
    '## bench/sessions: concurrent verifications end to end',
    '',
    `${SESSIONS} concurrent verifications per variant on one dev server and one worker (this process), against the emulator in its own process; each simulated user finishes after a random ${LATENCY.min / 1000}–${LATENCY.max / 1000} s (seeded). Delay = when the workflow knew the outcome minus when the user finished. History events: mean over 20 workflows. Run: \`npm run bench:sessions\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}).`,
    '',
    '| variant | wall s | sessions/s | API calls/session | delay p50 ms | delay p99 ms | history events | peak RSS MiB |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${cell(r.seconds)} | ${cell(r.sessionsPerSecond)} | ${cell(r.apiCallsPerSession)} | ${cell(r.delayP50)} | ${cell(r.delayP99)} | ${cell(r.historyEvents)} | ${cell(r.peakRssMiB)} |`,
    ),
    '',
    `Ratios: API calls per session, ours / fixed 2 s polling = **${cell(ours.apiCallsPerSession / fixed.apiCallsPerSession)}**; delay p50 ours / fixed = **${cell(ours.delayP50 / fixed.delayP50)}**; history events ours / fixed = **${cell(ours.historyEvents / fixed.historyEvents)}**; throughput ours / bare ceiling = **${cell(ours.sessionsPerSecond / bare.sessionsPerSecond)}** (sessions here last as long as their users, so throughput is bounded by user latency, not by the worker).`,
  ].join('\n');
  recordSection('sessions', markdown);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench/sessions failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
