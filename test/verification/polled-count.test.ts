import { polledVerifications } from '../../workers/budget-share';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

// Workers sharing one budget plan their polls over the verifications whose sessions are polled,
// as Temporal's visibility counts them: one still creating its session, or closed, takes no poll
// and must not stretch the others'.
describe('the verifications a shared budget plans polls over', () => {
  const stack = useVerificationStack();
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input' });
  });

  const visible = (query: string) =>
    eventually(
      async () => ((await stack().client.workflow.count(query)).count === 1 ? true : undefined),
      query,
    );

  it('counts the pending ones: not one still creating its session, nor one that ended', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    const polling = { initialMs: 200, maxMs: 500 };
    const pending = await stack().idv.startVerification(stack().request({ polling }));
    const ended = await stack().idv.startVerification(stack().request({ polling }));
    await stack().control('POST', `/sessions/${ended.nextStep.sessionId}/complete`);
    expect((await ended.handle.result()).status).toBe('succeeded');

    await stack().control('PUT', '/faults', { operation: 'CreateDirectProviderSession', errorRate: 1 });
    const request = stack().request({ polling });
    const starting = stack()
      .idv.startVerification(request)
      .catch(() => undefined);
    const startingId = `idv-${request.reference}`;
    await visible(`WorkflowId = '${startingId}' AND ExecutionStatus = 'Running' AND IdvStatus = 'starting'`);
    await visible(`WorkflowId = '${pending.handle.workflowId}' AND IdvStatus = 'pending'`);
    await visible(`WorkflowId = '${ended.handle.workflowId}' AND ExecutionStatus = 'Completed'`);

    expect(await polledVerifications(stack().client, stack().taskQueue)).toBe(1);

    await stack().client.workflow.getHandle(startingId).cancel();
    await stack().client.workflow.getHandle(pending.handle.workflowId).cancel();
    await starting;
  }, 60_000);
});
