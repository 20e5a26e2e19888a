import { VerificationNotStartedError } from '../../verification/client/idv-client';
import { onboardingFixture } from '../fixtures/parent-workflows';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

// Temporal cancellation and the deadline reach every phase of a verification, creation included,
// and the session never outlives them.
describe('cancellation and deadline, end to end', () => {
  const stack = useVerificationStack();
  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
  });
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input' });
  });

  const sessionView = (sessionId: string) => stack().control('GET', `/sessions/${sessionId}`);

  it('a cancelled workflow cancels its session at the service and schedules the redaction', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 0, polling: { initialMs: 200, maxMs: 500 } }),
    );
    await stack().client.workflow.getHandle(handle.workflowId).cancel();
    // An outcome like any other: the workflow completes with it.
    await expect(handle.result()).resolves.toMatchObject({
      status: 'cancelled',
      sessionId: nextStep.sessionId,
    });
    expect(await sessionView(nextStep.sessionId)).toMatchObject({
      outcome: { done: true, errorCode: 'Canceled' },
    });
    await stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`).result();
    expect(await sessionView(nextStep.sessionId)).toMatchObject({ redacted: { by: 'request' } });
    expect((await handle.progress()).status).toBe('cancelled');
  }, 30_000);

  it('a workflow cancelled after its user finished, before it learnt so, says its results were not fetched', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 0, polling: { initialMs: 60_000, maxMs: 60_000 } }),
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await stack().client.workflow.getHandle(handle.workflowId).cancel();
    // Not "succeeded" without the data asked for: the clean-up's cancel found the success, and no
    // results are fetched after a cancel.
    await expect(handle.result()).resolves.toMatchObject({
      status: 'failed',
      errorCode: 'ResultsUnavailable',
      sessionId: nextStep.sessionId,
    });
    expect(await handle.progress()).toMatchObject({ status: 'failed', errorCode: 'ResultsUnavailable' });
    await stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`).result();
    expect(await sessionView(nextStep.sessionId)).toMatchObject({ redacted: { by: 'request' } });
  }, 30_000);

  it('a workflow cancelled during creation is cancelled, not “session not created”', async () => {
    await stack().control('PUT', '/faults', { operation: 'CreateDirectProviderSession', errorRate: 1 });
    const request = stack().request({ redactAfter: 0 });
    const starting = stack()
      .idv.startVerification(request)
      .catch((e: unknown) => e);
    const workflow = stack().client.workflow.getHandle(`idv-${request.reference}`);
    await eventually(
      async () => ((await workflow.describe().catch(() => undefined)) ? true : undefined),
      'start',
    );
    await workflow.cancel();
    const outcome = (await workflow.result()) as { status: string; sessionId?: string };
    expect(outcome.status).toBe('cancelled');
    expect(outcome.sessionId).toBeUndefined();
    expect(await starting).toBeInstanceOf(VerificationNotStartedError);
  }, 30_000);

  it('a parent cancelling its runVerification child leaves no live session', async () => {
    const input = await stack().prepare(
      stack().request({ redactAfter: 0, polling: { initialMs: 200, maxMs: 500 } }),
    );
    const parent = await stack().client.workflow.start(onboardingFixture, {
      taskQueue: stack().taskQueue,
      workflowId: `onboarding-${input.reference}`,
      args: [input],
    });
    const child = stack().client.workflow.getHandle(`idv-${input.reference}`);
    const { sessionId } = await eventually(async () => {
      const progress = await child.query('progress').catch(() => undefined);
      return (progress as { sessionId?: string } | undefined)?.sessionId
        ? (progress as { sessionId: string })
        : undefined;
    }, 'the child’s session');
    await parent.cancel();
    await parent.result().catch(() => undefined);
    await child.result().catch(() => undefined);
    expect(await sessionView(sessionId)).toMatchObject({ outcome: { done: true, errorCode: 'Canceled' } });
  }, 30_000);

  it('the deadline covers creation: a service that keeps failing ends the verification as timed out', async () => {
    await stack().control('PUT', '/faults', { operation: 'CreateDirectProviderSession', errorRate: 1 });
    const request = stack().request({ timeout: '3s', redactAfter: 0 });
    const error: unknown = await stack()
      .idv.startVerification(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerificationNotStartedError);
    expect((error as Error).message).toMatch(/timed-out/);
    const handle = stack().idv.getVerification(request.reference);
    await expect(handle.result()).resolves.toMatchObject({ status: 'timed-out' });
    // No session, but a sealed providerInput in the start input: its data key is destroyed.
    const { dataKeyId } = await handle.progress();
    const report = await stack().client.workflow.getHandle(`idv-redact-key-${dataKeyId}`).result();
    expect(report).toMatchObject({ dataKeyDestroyed: true, redactedAtService: false });
    expect(await stack().store.dataKeys.get(dataKeyId)).toMatchObject({ state: 'destroyed' });
  }, 30_000);
});
