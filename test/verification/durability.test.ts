import { temporal } from '@temporalio/proto';
import { useVerificationStack, type VerificationStack } from '../harness/verification-stack';
import { eventually } from '../harness/eventually';

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

  it('yields exactly one outcome when the worker is killed and restarted mid-session', async () => {
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
    const request = stack().request({ redactAfter: 'never', polling: { initialMs: 200, maxMs: 1_000 } });
    const started = stack().idv.startVerification(request);
    const { handle } = await started;
    await stack().control('PUT', '/faults', { operation: 'GetSession', errorRate: 1, count: 3 });
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    const counters = await stack().control('GET', '/counters');
    expect(
      (counters.byOperation as Record<string, number>).CreateDirectProviderSession,
    ).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('cancels the orphan of a create whose answer was lost, leaving one live session', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      dropResponseRate: 1,
      count: 1,
    });
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', orphanSweepDelayMs: 0 }),
    );
    const progress = await eventually(async () => {
      const p = await handle.progress();
      return p.orphansCancelled > 0 ? p : undefined;
    }, 'the orphan sweep');
    expect(progress.orphansCancelled).toBe(1);
    const profileSessions = await stack().identity.sessions.list(stack().profileId, {
      orderBy: 'Created',
      orderDirection: 'Descending',
      pageSize: 50,
    });
    const live = profileSessions.sessions.filter((s) => !s.done);
    expect(live.map((s) => s.id)).toEqual([nextStep.sessionId]);
    await handle.cancel('done');
  }, 60_000);
});
