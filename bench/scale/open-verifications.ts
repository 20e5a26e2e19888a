// Many open verifications waiting on their users: the worker's memory and CPU while idle, the
// calls per minute the service sees meanwhile, and the time to drain once every user finishes.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client } from '@temporalio/client';
import { type IdvClient } from '../../verification/client/idv-client';
import { verificationWorkflowTypes } from '../../verification/shared/workflows';
import { testProviderRequest } from '../../test/harness/requests';
import { inLanes } from '../receiver/deliveries';
import { type BenchEmulator, processUsage } from './stack';

export interface OpenRun {
  count: number;
  startSeconds: number;
  idleSeconds: number;
  rssMiB: number;
  peakRssMiB: number;
  /** The phase the peak came in. */
  peakPhase: Phase;
  idleCpuPercent: number;
  idleCallsPerMinute: number;
  /** The worker's CPU while idle over the calls it made meanwhile (nearly all polls). */
  idleCpuMsPerCall: number;
  /** The poll activity's attempts while idle over the calls made meanwhile (NaN when not counted). */
  idlePollAttemptsPerCall: number;
  drainSeconds: number;
  busiestSecond: number;
  succeeded: number;
  sampled: number;
  /** Starts that failed three times (each retry joins the same reference). */
  startFailures: number;
}

const totalCalls = async (emulator: BenchEmulator) =>
  Object.values((await emulator.control('GET', '/counters')).byOperation as Record<string, number>).reduce(
    (sum, n) => sum + n,
    0,
  );

// Verifications only: the task queue's keyring runs as long as its workers do.
async function running(client: Client, taskQueue: string): Promise<number> {
  const { count } = await client.workflow.count(
    `TaskQueue = '${taskQueue}' AND WorkflowType = '${verificationWorkflowTypes.session}' AND ExecutionStatus = 'Running'`,
  );
  return count;
}

type Phase = 'starts' | 'idle' | 'drain';

export async function runOpenVerifications(options: {
  idv: IdvClient;
  client: Client;
  taskQueue: string;
  emulator: BenchEmulator;
  workerPid: number;
  /** The poll activity's attempts the worker has run so far, when it can tell. */
  pollAttempts?: () => Promise<number>;
  count: number;
  idleSeconds: number;
}): Promise<OpenRun> {
  const { emulator, workerPid } = options;
  await emulator.control('PUT', '/script', { outcome: 'manual' });
  await emulator.control('DELETE', '/counters');
  let peakRss = 0;
  let phase: Phase = 'starts';
  let peakPhase: Phase = phase;
  const sampler = setInterval(() => {
    const { rssMiB } = processUsage(workerPid);
    if (rssMiB > peakRss) [peakRss, peakPhase] = [rssMiB, phase];
  }, 1_000);
  const stamp = Date.now();
  const started: Array<{ reference: string; sessionId: string }> = [];
  let startFailures = 0;
  await inLanes(options.count, 100, async (i) => {
    const reference = `bench-open-${stamp}-${i}`;
    const start = () =>
      options.idv.startVerification(
        testProviderRequest(reference, emulator.info.verificationProfiles[0]?.id ?? '', {
          timeout: '2h',
          redactAfter: 'never',
        }),
      );
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { nextStep } = await start();
        started.push({ reference, sessionId: nextStep.sessionId });
        break;
      } catch (error) {
        if (attempt === 1) process.stderr.write(`open: a start failed: ${String(error)}\n`);
        if (attempt === 3) {
          startFailures += 1;
          break;
        }
      }
    }
    if (started.length % 1000 === 0) process.stderr.write(`open: ${started.length} started\n`);
  });
  const startSeconds = (Date.now() - stamp) / 1000;
  // Settle (the last starts' first polls), then the idle window.
  await sleep(20_000);
  phase = 'idle';
  const attempts = async () => (options.pollAttempts ? await options.pollAttempts() : Number.NaN);
  const before = {
    usage: processUsage(workerPid),
    calls: await totalCalls(emulator),
    attempts: await attempts(),
    at: Date.now(),
  };
  await sleep(options.idleSeconds * 1000);
  const after = {
    usage: processUsage(workerPid),
    calls: await totalCalls(emulator),
    attempts: await attempts(),
    at: Date.now(),
  };
  const idleSeconds = (after.at - before.at) / 1000;
  const drainStart = Date.now();
  phase = 'drain';
  await inLanes(started.length, 100, async (i) => {
    await emulator.control('POST', `/sessions/${started[i]?.sessionId}/complete`);
  });
  while ((await running(options.client, options.taskQueue)) > 0) await sleep(2_000);
  const drainSeconds = (Date.now() - drainStart) / 1000;
  clearInterval(sampler);
  const sample = started.filter((_, i) => i % Math.ceil(started.length / 50) === 0);
  const outcomes = await Promise.all(
    sample.map(({ reference }) => options.idv.getVerification(reference).result()),
  );
  const counters = await emulator.control('GET', '/counters');
  return {
    count: started.length,
    startSeconds,
    idleSeconds,
    rssMiB: after.usage.rssMiB,
    peakRssMiB: peakRss,
    peakPhase,
    idleCpuPercent: ((after.usage.cpuSeconds - before.usage.cpuSeconds) / idleSeconds) * 100,
    idleCallsPerMinute: ((after.calls - before.calls) / idleSeconds) * 60,
    idleCpuMsPerCall:
      ((after.usage.cpuSeconds - before.usage.cpuSeconds) * 1000) / (after.calls - before.calls),
    idlePollAttemptsPerCall: (after.attempts - before.attempts) / (after.calls - before.calls),
    drainSeconds,
    busiestSecond: Number(counters.busiestSecond),
    succeeded: outcomes.filter((outcome) => outcome.status === 'succeeded').length,
    sampled: outcomes.length,
    startFailures,
  };
}
