import { listFailedWork } from '../../agent-platform/client/failed-work';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

// A workflow terminated from outside (the web UI, `temporal workflow terminate`) runs none of its
// code: no clean-up, no redaction. The operator must be told, and `idv redact` must still reach
// the session.
describe('a verification terminated from outside its code', () => {
  const stack = useVerificationStack();
  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 300 });
  });
  afterEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'by-input', stepTtlSeconds: 300 });
  });

  it('is listed as failed work, and idv redact ends and redacts its session and destroys its key', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 0, polling: { initialMs: 200, maxMs: 500 } }),
    );
    const { dataKeyId } = await handle.progress();
    await handle.workflow.terminate('an operator thought it stuck');
    const listed = await eventually(async () => {
      const failed = await listFailedWork(stack().client, { taskQueue: stack().taskQueue });
      return failed.find((work) => work.workflowId === handle.workflowId);
    }, 'the terminated verification listed');
    expect(listed).toMatchObject({ state: 'terminated', type: 'verificationSession' });
    expect(listed?.next).toContain(`idv redact ${handle.reference}`);

    const report = await stack().idv.redactVerification(handle.reference);
    expect(report).toMatchObject({
      sessionId: nextStep.sessionId,
      redactedAtService: true,
      dataKeyDestroyed: true,
    });
    const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
    expect(view).toMatchObject({
      outcome: { done: true, errorCode: 'Canceled' },
      redacted: { by: 'request' },
    });
    expect((await stack().store.dataKeys.get(dataKeyId))?.state).toBe('destroyed');
  }, 30_000);

  it("is listed when it is a verification's redaction that was terminated", async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: '1h', polling: { initialMs: 200, maxMs: 500 } }),
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await handle.result();
    const redaction = stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`);
    await redaction.terminate('an operator thought it stuck');
    const listed = await eventually(async () => {
      const failed = await listFailedWork(stack().client, { taskQueue: stack().taskQueue });
      return failed.find((work) => work.workflowId === redaction.workflowId);
    }, 'the terminated redaction listed');
    expect(listed).toMatchObject({ state: 'terminated', type: 'sessionRedaction' });
    expect(listed?.next).toContain('idv redact');
  }, 30_000);
});
