import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';
import { openLocalStore } from '../../stores/local/local-store';
import { uniqueTaskQueue } from '../harness/worker';
import { startWorkerProcess, type WorkerProcess, workerProcessEnv } from '../harness/worker-process';

const RATE = 4;
const VERIFICATIONS = 24;

// IDV_API_RATE is the service's limit for every worker of a task queue together: two `idv worker`
// processes, each told 4 calls/s, start 24 verifications at once (their creates are calls that
// wait for nothing) and poll them; the service never sees more than 4 calls in a second.
describe('two idv worker processes on one task queue', () => {
  const stack = useVerificationStack();
  let dataDir: string;
  const workers: WorkerProcess[] = [];
  const taskQueue = uniqueTaskQueue('shared-budget');
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-shared-budget-'));
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('make at most IDV_API_RATE calls in any second together', async () => {
    const env = { ...workerProcessEnv(stack().emulator, taskQueue, dataDir), IDV_API_RATE: String(RATE) };
    // Started side by side; each one that started is stopped after, whatever the other did.
    const starting = await Promise.allSettled([startWorkerProcess(env), startWorkerProcess(env)]);
    for (const result of starting) if (result.status === 'fulfilled') workers.push(result.value);
    for (const result of starting) if (result.status === 'rejected') throw result.reason;
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await stack().control('DELETE', '/counters');
    const idv = harnessIdvClient(stack().client, await openLocalStore(dataDir), taskQueue);
    try {
      const started = await Promise.all(
        Array.from({ length: VERIFICATIONS }, () =>
          idv.startVerification(
            stack().request({ redactAfter: 'never', polling: { initialMs: 200, maxMs: 400 } }),
          ),
        ),
      );
      for (const { nextStep } of started)
        await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
      const outcomes = await Promise.all(started.map(({ handle }) => handle.result()));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(VERIFICATIONS).fill('succeeded'));
    } finally {
      await stack().control('PUT', '/script', { outcome: 'by-input' });
    }
    const counters = await stack().control('GET', '/counters');
    // Each verification's create, polls and results: well over what one process's 4/s would
    // spread thin, so two unshared budgets would have shown 8 in a second.
    expect((counters.byOperation as Record<string, number>).CreateDirectProviderSession).toBe(VERIFICATIONS);
    expect(Number(counters.busiestSecond)).toBeLessThanOrEqual(RATE);
    // Two worker starts (each bundles, then joins the budget) and some 100 calls at 4 a second.
  }, 180_000);
});
