import { type SessionRecord } from '../../emulator/state/model';
import { orphanSweepWorkflowId, redactionWorkflowId } from '../../verification/shared/ids';
import { type RedactionArgs, type SessionRedactionWorkflow } from '../../verification/shared/workflows';
import { eventually } from '../harness/eventually';
import { lookAgainNow } from '../harness/look-again';
import { useVerificationStack } from '../harness/verification-stack';

/** Sessions the emulator created while `body` ran, other than `keep`. */
async function newSessions(
  sessions: Map<string, SessionRecord>,
  body: () => Promise<string>,
): Promise<{ kept: string; others: SessionRecord[] }> {
  const before = new Set(sessions.keys());
  const kept = await body();
  return { kept, others: [...sessions.values()].filter((s) => !before.has(s.id) && s.id !== kept) };
}

// A create whose answer was lost leaves a session nobody asked for. Whatever the verification's
// own fate, that orphan is cancelled if live and redacted if it finished with data.
describe('orphans of lost create answers, end to end', () => {
  const stack = useVerificationStack();
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input', latencyMs: 2_000 });
  });

  const loseNextCreateAnswer = () =>
    stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      dropResponseRate: 1,
      count: 1,
    });

  /** A verification left running beside the live orphan of its lost create answer. */
  const liveOrphan = async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await loseNextCreateAnswer();
    const request = stack().request({ redactAfter: 'never' });
    const { kept, others } = await newSessions(stack().emulator.store.sessions, async () => {
      const { nextStep } = await stack().idv.startVerification(request);
      return nextStep.sessionId;
    });
    expect(others).toHaveLength(1);
    return { request, kept, orphan: others[0] as SessionRecord };
  };

  it('cancels a live orphan even when the verification ended before the sweep was due', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await loseNextCreateAnswer();
    const request = stack().request({ redactAfter: 'never' });
    const { kept, others } = await newSessions(stack().emulator.store.sessions, async () => {
      const { handle, nextStep } = await stack().idv.startVerification(request);
      await handle.cancel('customer left');
      await handle.result();
      return nextStep.sessionId;
    });
    expect(others).toHaveLength(1);
    const sweep = await stack().client.workflow.getHandle(orphanSweepWorkflowId(stack().profileId)).result();
    expect(sweep).toMatchObject({ swept: 1 });
    expect(others[0]?.outcome).toMatchObject({ done: true, errorCode: 'Canceled' });
    expect(others[0]?.redacted?.by).toBe('request');
    expect(stack().emulator.store.sessions.get(kept)?.outcome).toMatchObject({ errorCode: 'Canceled' });
  }, 90_000);

  it('keeps the profile’s sweep when the verification that started it is cancelled through Temporal', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await loseNextCreateAnswer();
    const request = stack().request({ redactAfter: 'never' });
    const sweepId = orphanSweepWorkflowId(stack().profileId);
    let runId = '';
    const { others } = await newSessions(stack().emulator.store.sessions, async () => {
      const { handle, nextStep } = await stack().idv.startVerification(request);
      // The sweep runs, the verification's child, serving every verification of the profile.
      runId = await eventually(
        () =>
          stack()
            .client.workflow.getHandle(sweepId)
            .describe()
            .then(
              (d) => (d.status.name === 'RUNNING' ? d.runId : undefined),
              () => undefined,
            ),
        'the sweep running',
      );
      // Cancelled as Temporal cancels: by an operator, or by a parent workflow closing.
      await stack().client.workflow.getHandle(handle.workflowId).cancel();
      await handle.result();
      return nextStep.sessionId;
    });
    expect(others).toHaveLength(1);
    // That run, not one started again after it ended.
    const sweep = stack().client.workflow.getHandle(sweepId, runId);
    expect(await sweep.result()).toMatchObject({ swept: 1 });
    const { events } = await sweep.fetchHistory();
    expect(events?.some((event) => event.workflowExecutionCancelRequestedEventAttributes)).toBe(false);
    expect(others[0]?.outcome).toMatchObject({ done: true, errorCode: 'Canceled' });
  }, 90_000);

  it('redacts an orphan that finished with identity data', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    await loseNextCreateAnswer();
    const request = stack().request({ redactAfter: 'never' });
    const { others } = await newSessions(stack().emulator.store.sessions, async () => {
      const { handle, nextStep } = await stack().idv.startVerification(request);
      await handle.result();
      return nextStep.sessionId;
    });
    expect(others).toHaveLength(1);
    await stack().client.workflow.getHandle(orphanSweepWorkflowId(stack().profileId)).result();
    expect(others[0]?.identity).toBeUndefined();
    expect(others[0]?.redacted?.by).toBe('request');
  }, 90_000);

  it('looks again an hour later at an orphan the service answered 404 for a while, and ends and redacts it', async () => {
    const { request, kept, orphan } = await liveOrphan();
    // A gateway answers 404 for every call naming the orphan, for a while: the sweep's cancel
    // takes it for gone.
    await stack().control('PUT', '/faults', {
      operation: '*',
      errorRate: 1,
      errorStatus: 404,
      sessionId: orphan.id,
    });
    const args: RedactionArgs = { sessionId: orphan.id, delayMs: 0, recheck: true };
    const again = stack().client.workflow.getHandle<SessionRedactionWorkflow>(redactionWorkflowId(args));
    await eventually(
      () =>
        again.describe().then(
          (described) => (described.status.name === 'RUNNING' ? true : undefined),
          () => undefined,
        ),
      'the look again at the orphan scheduled',
      60_000,
    );
    expect(orphan.outcome.done).toBe(false);
    // The 404s end; the hour passes (the same run started now, as Temporal would then).
    await stack().control('DELETE', '/faults');
    await expect(lookAgainNow(stack(), again, args)).resolves.toMatchObject({
      sessionId: orphan.id,
      redactedAtService: true,
    });
    expect(orphan.outcome).toMatchObject({ done: true, errorCode: 'Canceled' });
    expect(orphan.redacted?.by).toBe('request');
    await stack().idv.getVerification(request.reference).cancel('done with the test');
    expect(stack().emulator.store.sessions.get(kept)?.redacted).toBeUndefined();
  }, 120_000);

  it('redacts a live orphan while CancelSession keeps failing, and ends it once the service lets it', async () => {
    const { request, kept, orphan } = await liveOrphan();
    // Every cancel of the orphan fails for as long as this lasts; the verification's own session is left alone.
    await stack().control('PUT', '/faults', { operation: 'CancelSession', errorRate: 1, errorStatus: 503 });
    await eventually(
      () => Promise.resolve(orphan.redacted ? true : undefined),
      'the orphan redacted although it could not be ended',
      60_000,
    );
    expect(orphan.outcome.done).toBe(false);
    expect(orphan.identity).toBeUndefined();
    await stack().control('DELETE', '/faults');
    await eventually(
      () => Promise.resolve(orphan.outcome.done ? true : undefined),
      'the orphan ended once the service answers',
      60_000,
    );
    expect(orphan.outcome).toMatchObject({ errorCode: 'Canceled' });
    await stack().idv.getVerification(request.reference).cancel('done with the test');
    expect(stack().emulator.store.sessions.get(kept)?.redacted).toBeUndefined();
  }, 150_000);
});
