import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeCount } from '../harness/close-events';
import { type VerificationOutcome } from '../../verification/domain/verification';
import { eventually } from '../harness/eventually';
import { type IdvClient } from '../../verification/client/idv-client';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';
import { openLocalStore } from '../../stores/local/local-store';
import { uniqueTaskQueue } from '../harness/worker';
import { startWorkerProcess, workerProcessEnv, type WorkerProcess } from '../harness/worker-process';

type Plan = 'succeeds' | 'fails' | 'cancelled' | 'times-out';
const plans: Plan[] = [
  ...Array<Plan>(6).fill('succeeds'),
  ...Array<Plan>(2).fill('fails'),
  ...Array<Plan>(2).fill('cancelled'),
  ...Array<Plan>(2).fill('times-out'),
];
const expected: Record<Plan, VerificationOutcome['status']> = {
  succeeds: 'succeeded',
  fails: 'failed',
  cancelled: 'cancelled',
  'times-out': 'timed-out',
};

// The promise under faults: verifications run while the service answers 5xx and 429, drops
// connections, loses create answers, carries creates out after the answer timeout, answers 409 to
// cancels of finished sessions and 503 to every redaction for a while, and the worker process is
// SIGKILLed twice. Afterwards every verification has its one planned outcome and nothing is left
// live, readable or running.
describe('fault run', () => {
  const stack = useVerificationStack();
  let dataDir: string;
  let worker: WorkerProcess | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-faults-'));
  });
  // The emulator (with its faults and script) goes with the stack; the worker process is ours.
  afterAll(async () => {
    await worker?.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps one outcome per verification and leaves nothing live, readable or running', async () => {
    const taskQueue = uniqueTaskQueue('faults');
    const env = workerProcessEnv(stack().emulator, taskQueue, dataDir);
    const idv = harnessIdvClient(stack().client, await openLocalStore(dataDir), taskQueue);
    const sessions = stack().emulator.store.sessions;
    const before = new Set(sessions.keys());
    // Every session waits for the test to decide its fate; orphans wait forever unless swept.
    await stack().control('PUT', '/script', { outcome: 'manual' });
    worker = await startWorkerProcess(env);
    await stack().control('PUT', '/faults', {
      operation: '*',
      errorRate: 0.1,
      rateLimitRate: 0.1,
      retryAfterSeconds: 1,
      dropRate: 0.05,
      durationMs: 20_000,
    });
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      dropResponseRate: 0.3,
      // Past the worker's 30 s answer timeout: the retry's session is kept, this one swept.
      lateRate: 0.15,
      lateMs: 35_000,
      errorRate: 0.1,
      rateLimitRate: 0.1,
      durationMs: 20_000,
    });
    await stack().control('PUT', '/faults', {
      operation: 'CancelSession',
      errorRate: 1,
      errorStatus: 409,
      whenSessionDone: true,
    });
    await stack().control('PUT', '/faults', {
      operation: 'RedactSession',
      errorRate: 1,
      errorStatus: 503,
      durationMs: 30_000,
    });

    const started = await Promise.all(
      plans.map(async (plan, index) => {
        const request = stack().request({
          reference: `fault-${process.pid}-${Date.now()}-${index}`,
          timeout: plan === 'times-out' ? '6s' : '2m',
          redactAfter: 0,

          // One poll per attempt: a killed worker's held polls would come back only after their
          // attempt's bound, past these verifications' deadline (worker-process.test.ts has one).
          polling: { initialMs: 300, maxMs: 1_000, attemptMs: 60_000 },
        });
        const start = await idv.startVerification(request).catch((error: unknown) => error);
        return { plan, reference: request.reference, start };
      }),
    );
    await worker.kill();
    worker = await startWorkerProcess(env);

    await Promise.all(
      started.map(async ({ plan, start }) => {
        if (start instanceof Error) return; // a time-out may come before the session does
        const { sessionId } = (start as Awaited<ReturnType<IdvClient['startVerification']>>).nextStep;
        if (plan === 'succeeds') await stack().control('POST', `/sessions/${sessionId}/complete`);
        if (plan === 'fails')
          await stack().control('POST', `/sessions/${sessionId}/fail`, { errorCode: 'Other' });
      }),
    );
    await worker.kill();
    worker = await startWorkerProcess(env);
    await Promise.all(
      started
        .filter(({ plan }) => plan === 'cancelled')
        .map(({ reference }) => idv.getVerification(reference).cancel('fault run')),
    );

    const outcomes = await Promise.all(
      started.map(async ({ plan, reference }) => {
        const handle = idv.getVerification(reference);
        const outcome = await handle.result();
        const { events } = await handle.workflow.fetchHistory();
        const closes = closeCount(events);
        return { plan, status: outcome.status, closes };
      }),
    );
    await stack().control('DELETE', '/faults');

    const running = async () => {
      let count = 0;
      for await (const _ of stack().client.workflow.list({
        query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running' AND WorkflowType != 'keyring'`,
      }))
        count += 1;
      return count;
    };
    await eventually(
      async () => ((await running()) === 0 ? true : undefined),
      'every workflow to close',
      120_000,
    );
    const created = [...sessions.values()].filter((session) => !before.has(session.id));
    const counts = {
      verifications: outcomes.length,
      asPlanned: outcomes.filter((o) => o.status === expected[o.plan] && o.closes === 1).length,
      sessions: created.length,
      orphans: created.length - outcomes.length,
      live: created.filter((session) => !session.outcome.done).length,
      holdingIdentity: created.filter((session) => session.identity !== undefined).length,
      running: await running(),
    };
    console.log(`fault run: ${JSON.stringify(counts)}`);
    expect(outcomes.map((o) => [o.plan, o.status, o.closes])).toEqual(
      outcomes.map((o) => [o.plan, expected[o.plan], 1]),
    );
    expect(counts).toMatchObject({ live: 0, holdingIdentity: 0, running: 0 });
  }, 300_000);
});
