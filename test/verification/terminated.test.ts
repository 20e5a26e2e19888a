import { listFailedWork } from '../../agent-platform/client/failed-work';
import { NoSessionError } from '../../verification/client/idv-client';
import { eventually } from '../harness/eventually';
import { deleteAsRetentionWould } from '../harness/retention';
import { useVerificationStack } from '../harness/verification-stack';

// A workflow terminated from outside (the web UI, `temporal workflow terminate`) runs none of its
// code: no clean-up, no redaction. The operator must be told, and `idv redact` must still reach
// the session.
describe('a verification terminated from outside its code', () => {
  const stack = useVerificationStack();
  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 300 });
  });
  /** The failed-work entry of a workflow, once the listing shows it. */
  const listedFailure = (workflowId: string) =>
    eventually(async () => {
      const failed = await listFailedWork(stack().client, { taskQueue: stack().taskQueue });
      return failed.find((work) => work.workflowId === workflowId);
    }, `${workflowId} listed as failed work`);
  /** A verification whose user finished, ended, its redaction waiting (an hour unless told). */
  const waitingRedaction = async (redactAfter: '1h' | '10s' = '1h') => {
    const started = await stack().idv.startVerification(
      stack().request({ redactAfter, polling: { initialMs: 200, maxMs: 500 } }),
    );
    await stack().control('POST', `/sessions/${started.nextStep.sessionId}/complete`);
    await started.handle.result();
    return started;
  };
  /** `idv redact` of a terminated verification: its session ended and redacted, its key destroyed. */
  const redactedByIdv = async (reference: string, sessionId: string, dataKeyId: string | undefined) => {
    const report = await stack().idv.redactVerification(reference);
    expect(report).toMatchObject({ sessionId, redactedAtService: true, dataKeyDestroyed: true });
    const view = await stack().control('GET', `/sessions/${sessionId}`);
    expect(view).toMatchObject({
      outcome: { done: true, errorCode: 'Canceled' },
      redacted: { by: 'request' },
    });
    expect((await stack().store.dataKeys.get(dataKeyId ?? ''))?.state).toBe('destroyed');
  };
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input', stepTtlSeconds: 300 });
  });

  it('is listed as failed work, and idv redact ends and redacts its session and destroys its key', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 0, polling: { initialMs: 200, maxMs: 500 } }),
    );
    const { dataKeyId } = await handle.progress();
    await handle.workflow.terminate('an operator thought it stuck');
    const listed = await listedFailure(handle.workflowId);
    expect(listed).toMatchObject({ state: 'terminated', type: 'verificationSession' });
    expect(listed?.next).toContain(`idv redact ${handle.reference}`);

    await redactedByIdv(handle.reference, nextStep.sessionId, dataKeyId);
  }, 30_000);

  it('idv redact reaches the session of one terminated once Temporal no longer keeps it', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 0, polling: { initialMs: 200, maxMs: 500 } }),
    );
    const { dataKeyId } = await handle.progress();
    await handle.workflow.terminate('an operator thought it stuck');
    // Its record names no session: only an ending writes one, and a terminated run has none.
    await deleteAsRetentionWould(stack().client, handle.workflowId);
    expect((await stack().store.records.get(handle.reference))?.sessionId).toBeUndefined();

    await redactedByIdv(handle.reference, nextStep.sessionId, dataKeyId);
    expect((await stack().store.records.get(handle.reference))?.redactedAt).toBeDefined();
  }, 240_000);

  it("is listed when it is a verification's redaction that was terminated", async () => {
    const { nextStep } = await waitingRedaction();
    const redaction = stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`);
    await redaction.terminate('an operator thought it stuck');
    const listed = await listedFailure(redaction.workflowId);
    expect(listed).toMatchObject({ state: 'terminated', type: 'sessionRedaction' });
    expect(listed?.next).toContain('idv redact');
  }, 30_000);

  it("is listed when it is a verification's redaction that was cancelled before it was due", async () => {
    // It still erases at its due time, then ends cancelled: its steps at the service were cut short.
    const { nextStep } = await waitingRedaction('10s');
    const redaction = stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`);
    await redaction.cancel();
    await redaction.result().catch(() => undefined);
    const listed = await listedFailure(redaction.workflowId);
    expect(listed).toMatchObject({ state: 'cancelled', type: 'sessionRedaction' });
    expect(listed?.reason).toMatch(/erased at its due time all the same/);
    expect(listed?.next).toContain('idv redact');
  }, 30_000);

  it('does not list a waiting redaction that idv redact replaced with one run at once', async () => {
    const { handle, nextStep } = await waitingRedaction();
    const workflowId = `idv-redact-${nextStep.sessionId}`;
    await stack().idv.redactVerification(handle.reference);
    // The waiting run was terminated by the one that replaced it: visible as such first.
    await eventually(async () => {
      for await (const run of stack().client.workflow.list({
        query: `WorkflowId = '${workflowId}' AND ExecutionStatus = 'Terminated'`,
      }))
        return run;
      return undefined;
    }, 'the replaced run terminated');
    const failed = await listFailedWork(stack().client, { taskQueue: stack().taskQueue });
    expect(failed.filter((work) => work.workflowId === workflowId)).toEqual([]);
  }, 30_000);
  it('idv redact closes the creation of one terminated while its create was under way: the session created later is swept', async () => {
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      lateRate: 1,
      lateMs: 4_000,
      count: 1,
    });
    const before = new Set(stack().emulator.store.sessions.keys());
    const request = stack().request({ redactAfter: 0 });
    const starting = stack()
      .idv.startVerification(request)
      .catch((error: unknown) => error);
    const creates = async () =>
      ((await stack().control('GET', '/counters')).byOperation as Record<string, number>)
        .CreateDirectProviderSession ?? 0;
    const sent = await creates();
    await eventually(async () => ((await creates()) > sent ? true : undefined), 'the create sent');
    await stack().client.workflow.getHandle(`idv-${request.reference}`).terminate('thought stuck');
    await starting;
    await expect(stack().idv.redactVerification(request.reference)).rejects.toBeInstanceOf(NoSessionError);
    // The service carries the create out later: nobody claims it, the profile's sweep ends it.
    const made = await eventually(
      () => {
        const sessions = [...stack().emulator.store.sessions.values()].filter(
          (session) => !before.has(session.id),
        );
        return Promise.resolve(
          sessions.length > 0 && sessions.every((session) => session.outcome.done) ? sessions : undefined,
        );
      },
      'the late session swept',
      60_000,
    );
    expect(made).toHaveLength(1);
    expect(made[0]?.outcome).toMatchObject({ done: true, errorCode: 'Canceled' });
  }, 90_000);

  it("is listed when it is a profile's orphan sweep that was terminated", async () => {
    const workflowId = await stack().idv.sweepOrphans(stack().profileId);
    await stack().client.workflow.getHandle(workflowId).terminate('an operator thought it stuck');
    const listed = await listedFailure(workflowId);
    expect(listed).toMatchObject({ state: 'terminated', type: 'orphanSweep' });
    expect(listed?.next).toContain('idv sweep');
    // Started again, it is no longer listed: the terminated run has a later one.
    await stack().idv.sweepOrphans(stack().profileId);
    const failed = await listFailedWork(stack().client, { taskQueue: stack().taskQueue });
    expect(failed.filter((work) => work.workflowId === workflowId)).toEqual([]);
  }, 30_000);
});
