import { temporal } from '@temporalio/proto';
import { useVerificationStack, type VerificationStack } from '../harness/verification-stack';

async function createCount(stack: VerificationStack): Promise<number> {
  const counters = await stack.control('GET', '/counters');
  return (counters.byOperation as Record<string, number>).CreateDirectProviderSession ?? 0;
}

describe('verification durability, end to end', () => {
  const stack = useVerificationStack();
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input' });
  });

  it('a repeated start returns the same session instead of creating a second one', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    const request = stack().request({ redactAfter: 'never' });
    const before = await createCount(stack());
    const first = await stack().idv.startVerification(request);
    const second = await stack().idv.startVerification(request);
    expect(second.nextStep.sessionId).toBe(first.nextStep.sessionId);
    expect(second.handle.workflowId).toBe(`idv-${request.reference}`);
    expect((await createCount(stack())) - before).toBe(1);
    await first.handle.cancel('done');
  });

  it('refuses to start a finished reference again, so no second session is created', async () => {
    const request = stack().request({ redactAfter: 'never' });
    const { handle } = await stack().idv.startVerification(request);
    await handle.result();
    const before = await createCount(stack());
    await expect(stack().idv.startVerification(request)).rejects.toThrow(/has already ended/);
    expect(await createCount(stack())).toBe(before);
  });

  // A real SIGKILL of a worker process is in worker-process.test.ts; this one stops the in-process
  // worker (graceful shutdown) while the user finishes, and starts a new one.
  it('yields exactly one outcome when the worker is stopped and a new one starts mid-session', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    const before = await createCount(stack());
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never' }),
    );
    await stack().stopWorker();
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await stack().startWorker();
    await expect(handle.result()).resolves.toMatchObject({
      status: 'succeeded',
      sessionId: nextStep.sessionId,
    });
    expect((await createCount(stack())) - before).toBe(1);
    const workflow = stack().client.workflow.getHandle(handle.workflowId);
    expect((await workflow.describe()).status.name).toBe('COMPLETED');
    const { events } = await workflow.fetchHistory();
    const completed = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED;
    expect((events ?? []).filter((event) => event.eventType === completed)).toHaveLength(1);
  }, 60_000);

  it('still yields the outcome while the service answers 500s and 429s for a while', async () => {
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      rateLimitRate: 1,
      retryAfterSeconds: 1,
      count: 2,
    });
    const before = await createCount(stack());
    const request = stack().request({ redactAfter: 'never', polling: { initialMs: 200, maxMs: 1_000 } });
    const { handle, nextStep } = await stack().idv.startVerification(request);
    // This verification's own create was refused twice with 429, then answered.
    expect((await createCount(stack())) - before).toBe(3);
    await stack().control('PUT', '/faults', { operation: 'GetSession', errorRate: 1, count: 3 });
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    const counters = await stack().control('GET', '/counters');
    const calls = (counters.bySession as Record<string, Record<string, number>>)[nextStep.sessionId];
    expect(calls?.GetSession).toBeGreaterThanOrEqual(4);
  }, 60_000);
});
