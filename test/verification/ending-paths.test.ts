import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import {
  VerificationEndedError,
  type VerificationHandle,
} from '../../verification/client/verification-handle';
import {
  type RedactionArgs,
  type RedactionReport,
  type SessionRedactionWorkflow as RedactionWorkflow,
} from '../../verification/shared/workflows';
import { type VerificationRequest } from '../../verification/domain/verification';
import { eventually } from '../harness/eventually';
import { lookAgainNow } from '../harness/look-again';
import { mobileRequest, nativeChallengeRequest } from '../harness/requests';
import { useVerificationStack } from '../harness/verification-stack';

/** The failure types along an error's cause chain (ApplicationFailure `type` or class name). */
function causeTypes(error: unknown): string[] {
  const types: string[] = [];
  let current: unknown = error;
  while (current instanceof Error) {
    const type = (current as { type?: unknown }).type;
    types.push(typeof type === 'string' ? type : current.name);
    current = current.cause;
  }
  return types;
}

const { EventType } = temporal.api.enums.v1;

// Every way a verification can end must end it: one outcome, the session closed at the service,
// the redaction scheduled, no handler left behind. Each test is a path that once broke that.
describe('verification ending paths, end to end', () => {
  const stack = useVerificationStack();
  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 300 });
  });
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input', stepTtlSeconds: 300 });
  });

  const mobile = (overrides = {}) =>
    stack().request({
      ...mobileRequest,
      redactAfter: 'never',
      polling: { initialMs: 200, maxMs: 500 },
      ...overrides,
    });

  const fast = { polling: { initialMs: 200, maxMs: 500 } };
  /** A native challenge verification (an mDL through the browser), no results kept. */
  const nativeChallenge = (overrides: Partial<VerificationRequest> = {}) =>
    stack().request({ ...nativeChallengeRequest, ...overrides });

  /**
   * A verification whose cancel the service refuses (403; `refusals` times, or always), cancelled
   * by the caller; resolves once the cancel has been answered.
   */
  async function cancelRefused(redactAfter: VerificationRequest['redactAfter'], refusals?: number) {
    const started = await stack().idv.startVerification(stack().request({ redactAfter, ...fast }));
    await stack().control('PUT', '/faults', {
      operation: 'CancelSession',
      errorRate: 1,
      errorStatus: 403,
      ...(refusals === undefined ? {} : { count: refusals }),
    });
    await started.handle.cancel('customer left');
    return started;
  }
  /** Calls of `operation` the emulator counted for a session. */
  const counted = async (sessionId: string, operation: string) => {
    const counters = await stack().control('GET', '/counters');
    return (counters.bySession as Record<string, Record<string, number>>)[sessionId]?.[operation] ?? 0;
  };

  /** A verification whose user finished at once, its results fetched and kept (no redaction due). */
  async function finishedVerification() {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    const started = await stack().idv.startVerification(
      stack().request({ results: 'data', redactAfter: 'never', ...fast }),
    );
    await started.handle.result();
    return { ...started, sessionId: started.nextStep.sessionId };
  }
  /** The session's `operation` answers 404 (`count` times, or always). */
  const answers404 = (operation: string, sessionId: string, count?: number) =>
    stack().control('PUT', '/faults', {
      operation,
      errorRate: 1,
      errorStatus: 404,
      sessionId,
      ...(count === undefined ? {} : { count }),
    });

  /**
   * A verification whose session's GetSession answers 404 as `fault` says (the session is there
   * all along): the interface defines no 404, so one does not prove the session gone.
   */
  async function answered404(fault: Record<string, number>, overrides: Partial<VerificationRequest> = {}) {
    const started = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', ...fast, ...overrides }),
    );
    const { sessionId } = started.nextStep;
    await stack().control('PUT', '/faults', {
      operation: 'GetSession',
      errorRate: 1,
      errorStatus: 404,
      ...fault,
      sessionId,
    });
    return { ...started, sessionId };
  }
  /** Resolves once the session was read `reads` times. */
  const read = (sessionId: string, reads: number) =>
    eventually(
      async () => ((await counted(sessionId, 'GetSession')) >= reads ? true : undefined),
      `${reads} reads`,
    );

  it('goes on when an automatic step refresh fails for good, and still learns the outcome', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 1 });
    await stack().control('PUT', '/faults', {
      operation: 'RefreshStepContent',
      errorRate: 1,
      errorStatus: 400,
    });
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    // Wait until the refresh failed (it is due 0.8 s after creation), then let the user finish.
    const counted = async () =>
      ((await stack().control('GET', '/counters')).byOperation as Record<string, number>)
        .RefreshStepContent ?? 0;
    await eventually(async () => ((await counted()) > 0 ? true : undefined), 'the failed refresh');
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
  }, 30_000);

  it('redacts when the results cannot be fetched, and says so in the outcome', async () => {
    await stack().control('PUT', '/faults', {
      operation: 'GetSessionResult',
      errorRate: 1,
      errorStatus: 400,
    });
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 0, polling: { initialMs: 200, maxMs: 500 } }),
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await expect(handle.result()).resolves.toMatchObject({
      status: 'failed',
      errorCode: 'ResultsUnavailable',
      sessionId: nextStep.sessionId,
    });
    const report = await stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`).result();
    expect(report as RedactionReport).toMatchObject({ redactedAtService: true });
    const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
    expect(view).toMatchObject({ redacted: { by: 'request' }, hasIdentityData: false });
  }, 30_000);

  it('answers a cancel at once, without waiting for the running poll', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', polling: { initialMs: 60_000, maxMs: 60_000 } }),
    );
    await handle.cancel('customer left');
    // The poll's first look would come a minute later: the outcome must not wait for it.
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    expect(await counted(nextStep.sessionId, 'GetSession')).toBe(0);
  }, 30_000);

  it('answers a native challenge submission at once, without waiting for the deadline', async () => {
    const { handle } = await stack().idv.startVerification(nativeChallenge());
    await handle.submitNativeChallenge('device-response');
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
  }, 30_000);

  it('answers a native challenge submission whose answer was lost with the session’s real state', async () => {
    const { handle } = await stack().idv.startVerification(nativeChallenge());
    // Carried out, its answer lost: the retry is refused (the session is done by then).
    await stack().control('PUT', '/faults', {
      operation: 'SubmitNativeChallengeResponse',
      dropResponseRate: 1,
      count: 1,
    });
    await expect(handle.submitNativeChallenge('device-response')).resolves.toMatchObject({
      status: 'succeeded',
    });
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
  }, 30_000);

  it('refuses a native challenge answer once the caller asked to cancel, while the cancel is under way', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(nativeChallenge());
    await stack().control('PUT', '/faults', { operation: 'CancelSession', errorRate: 1, errorStatus: 503 });
    const cancelled = handle.cancel('customer left');
    await eventually(
      async () => ((await counted(nextStep.sessionId, 'CancelSession')) >= 1 ? true : undefined),
      'the cancel under way',
    );
    // Sent beside the failing cancel, the answer would finish the session the caller gave up.
    await expect(handle.submitNativeChallenge('device-response')).rejects.toBeInstanceOf(
      VerificationEndedError,
    );
    expect(await counted(nextStep.sessionId, 'SubmitNativeChallengeResponse')).toBe(0);
    await stack().control('DELETE', '/faults');
    await expect(cancelled).resolves.toMatchObject({ status: 'cancelled' });
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
  }, 30_000);

  it('lets an update in flight finish before the verification ends on a failure path', async () => {
    await stack().control('PUT', '/faults', {
      operation: 'GetSessionResult',
      errorRate: 1,
      errorStatus: 400,
    });
    const { handle, nextStep } = await stack().idv.startVerification(mobile({ results: 'data' }));
    await stack().control('PUT', '/faults', { operation: 'RefreshStepContent', latencyMs: 1_500, count: 1 });
    const refresh = handle.refreshStep().catch((error: unknown) => error);
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ errorCode: 'ResultsUnavailable' });
    // The refresh reached the service after the user finished: the service's own answer, not
    // "the workflow completed before the update".
    expect(causeTypes(await refresh)).toContain('ValidationError');
  }, 30_000);

  it('ends at once, visibly, when the service no longer knows the session', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', polling: { initialMs: 200, maxMs: 500 } }),
    );
    stack().emulator.store.sessions.delete(nextStep.sessionId);
    await expect(handle.result()).resolves.toMatchObject({
      status: 'failed',
      errorCode: 'SessionNotFound',
      sessionId: nextStep.sessionId,
    });
  }, 30_000);

  // The interface defines no 404: one answered to a read does not prove the session gone.
  it('reads a session again after a read answered 404, and goes on when it is there', async () => {
    // 404s for four seconds: the poll is not restarted to meet another before the read again.
    const { handle, sessionId } = await answered404({ durationMs: 4_000 });
    // The 404 and reads after it.
    await read(sessionId, 3);
    expect((await handle.progress()).status).toBe('pending');
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
  }, 30_000);

  it('ends a session every read says is unknown, and still cancels it in case it is there', async () => {
    const { handle, sessionId } = await answered404({});
    await expect(handle.result()).resolves.toMatchObject({
      status: 'failed',
      errorCode: 'SessionNotFound',
      sessionId,
    });
    const view = await stack().control('GET', `/sessions/${sessionId}`);
    expect(view).toMatchObject({ outcome: { done: true, errorCode: 'Canceled' } });
    expect(await counted(sessionId, 'CancelSession')).toBe(1);
  }, 30_000);

  /** A verification whose session a gateway answers 404 for, every call naming it, for a while. */
  const servedAs404 = async (options: Pick<VerificationRequest, 'redactAfter'>) => {
    const started = await stack().idv.startVerification(
      stack().request({ ...options, results: 'none', ...fast }),
    );
    const { sessionId } = started.nextStep;
    await stack().control('PUT', '/faults', { operation: '*', errorRate: 1, errorStatus: 404, sessionId });
    return { started, sessionId };
  };

  it('looks again an hour later at a session the service answered 404 for a while, and ends and redacts it', async () => {
    const { started, sessionId } = await servedAs404({ redactAfter: 0 });
    await expect(started.handle.result()).resolves.toMatchObject({
      status: 'failed',
      errorCode: 'SessionNotFound',
    });
    const redaction = stack().client.workflow.getHandle<RedactionWorkflow>(`idv-redact-${sessionId}`);
    await expect(redaction.result()).resolves.toMatchObject({
      redactedAtService: false,
      dataKeyDestroyed: true,
    });
    // The verification's cancel, then the redaction's own: the session counts as gone to neither.
    expect(await counted(sessionId, 'CancelSession')).toBeGreaterThanOrEqual(2);
    // The look again waits an hour for its start.
    const again = stack().client.workflow.getHandle<RedactionWorkflow>(`idv-redact-again-${sessionId}`);
    expect((await again.describe()).status.name).toBe('RUNNING');
    // The 404s end and the user finishes the session everything took for gone; the hour passes
    // (the same run started now, as Temporal would then).
    const args: RedactionArgs = { sessionId, delayMs: 0, recheck: true };
    await stack().control('DELETE', '/faults');
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    await expect(lookAgainNow(stack(), again, args)).resolves.toMatchObject({
      sessionId,
      redactedAtService: true,
    });
    const view = await stack().control('GET', `/sessions/${sessionId}`);
    expect(view).toMatchObject({ outcome: { done: true }, redacted: { by: 'request' } });
  }, 60_000);

  it('looks again later still, up to its last look, while the service goes on answering 404 for the session', async () => {
    // A session the service answers 404 for at every call (one it never had, here); the hour
    // has passed (the look again started at once, as Temporal would then), and the 404s go on:
    // it looks again 6 hours later, rather than leaving a session it cannot see.
    const sessionId = randomUUID();
    const args: RedactionArgs = { sessionId, delayMs: 0, recheck: true };
    const look = await stack().client.workflow.start<RedactionWorkflow>('sessionRedaction', {
      taskQueue: stack().taskQueue,
      workflowId: `idv-test-look-again-${sessionId}`,
      args: [args],
    });
    const timer = await eventually(async () => {
      const { events } = await look.fetchHistory();
      return (
        events?.find((event) => event.timerStartedEventAttributes)?.timerStartedEventAttributes ?? undefined
      );
    }, 'the next look again waiting');
    expect(Number(timer.startToFireTimeout?.seconds)).toBe(6 * 3600);
    // Having looked first: its cancel and its redaction were sent, and answered 404.
    expect(await counted(sessionId, 'CancelSession')).toBeGreaterThanOrEqual(1);
    expect(await counted(sessionId, 'RedactSession')).toBeGreaterThanOrEqual(1);
    expect((await look.describe()).status.name).toBe('RUNNING');
    await look.terminate('done with the test');
  }, 60_000);

  it('looks again an hour later at a session it keeps data of that the service answered 404 for a while, and ends it', async () => {
    const { started, sessionId } = await servedAs404({ redactAfter: 'never' });
    await expect(started.handle.result()).resolves.toMatchObject({ errorCode: 'SessionNotFound' });
    // Kept data: the session is only ended, by a run of its own, which the 404s leave unsure.
    await stack().client.workflow.getHandle<RedactionWorkflow>(`idv-end-${sessionId}`).result();
    const again = stack().client.workflow.getHandle<RedactionWorkflow>(`idv-end-again-${sessionId}`);
    expect((await again.describe()).status.name).toBe('RUNNING');
    await stack().control('DELETE', '/faults');
    const args: RedactionArgs = { sessionId, delayMs: 0, recheck: true, redact: false };
    await lookAgainNow(stack(), again, args);
    const view = await stack().control('GET', `/sessions/${sessionId}`);
    expect(view).toMatchObject({ outcome: { done: true, errorCode: 'Canceled' } });
    expect((view as { redacted?: unknown }).redacted ?? undefined).toBeUndefined();
  }, 60_000);

  /** The current details the Temporal UI shows for a verification. */
  const currentDetails = async (handle: VerificationHandle) =>
    (await handle.workflow.query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;
  /** Resolves once `operation` was counted `calls` times for the session. */
  const calls = (sessionId: string, operation: string, calls: number) =>
    eventually(
      async () => ((await counted(sessionId, operation)) >= calls ? true : undefined),
      `${calls} ${operation}`,
    );

  it('goes on refreshing a step automatically after a refresh answered 404 while the session is there', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 1 });
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    const { sessionId } = nextStep;
    await answers404('RefreshStepContent', sessionId, 1);
    // The session is read again 5 s after the refresh's 404 and found: the step, which lives a
    // second, must still be refreshed (before, one 404 stopped its refreshes for good).
    await calls(sessionId, 'RefreshStepContent', 3);
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
  }, 30_000);

  it('tries a refused step refresh again, and stops visibly after three refusals', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 1 });
    // Set before the start: the first refresh is due 0.8 s after the session is created, maybe
    // before the start has answered.
    await stack().control('PUT', '/faults', {
      operation: 'RefreshStepContent',
      errorRate: 1,
      errorStatus: 403,
    });
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    const { sessionId } = nextStep;
    await eventually(
      async () =>
        /Step refreshes: stopped, refused 3 times since/.test(await currentDetails(handle))
          ? true
          : undefined,
      'refreshes stopped',
    );
    expect(await counted(sessionId, 'RefreshStepContent')).toBe(3);
    // A refresh of the caller's own that succeeds starts them again.
    await stack().control('DELETE', '/faults');
    await handle.refreshStep();
    await calls(sessionId, 'RefreshStepContent', 5);
    expect(await currentDetails(handle)).not.toMatch(/Step refreshes: stopped/);
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
  }, 30_000);

  it('keeps the success of a session that finished while two reads said it is unknown', async () => {
    const { handle, sessionId } = await answered404({ count: 2 }, { results: 'data' });
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    // The poll's 404 and the read again's: the cancel then learns the session succeeded.
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: 'succeeded', sessionId });
    expect(outcome.identity).toBeDefined();
    expect(await counted(sessionId, 'CancelSession')).toBe(1);
  }, 30_000);

  it('goes on when the user comes back while the read again says 404, and the session is there', async () => {
    // The poll's 404, then the read again's, answered 10 s after it arrived (the read again
    // comes 5 s after the 404: the second fault is set well before).
    const { handle, sessionId } = await answered404({ count: 1 });
    await read(sessionId, 1);
    await stack().control('PUT', '/faults', {
      operation: 'GetSession',
      errorRate: 1,
      errorStatus: 404,
      count: 1,
      latencyMs: 10_000,
      sessionId,
    });
    await read(sessionId, 2);
    // The user comes back while it waits for its answer: the redirect's check finds the session.
    await handle.redirectCaptured();
    await read(sessionId, 3);
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect(await counted(sessionId, 'CancelSession')).toBe(0);
  }, 30_000);

  it('keeps the ending of a session someone else cancelled while two reads said it is unknown', async () => {
    const { handle, sessionId } = await answered404({ count: 2 });
    await stack().control('POST', `/sessions/${sessionId}/fail`, { errorCode: 'Canceled' });
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled', errorCode: 'Canceled' });
  }, 30_000);

  it('counts a cancel whose answer was lost as its own after two reads said the session is unknown', async () => {
    const { handle, sessionId } = await answered404({ count: 2 });
    // Carried out, its answer lost: the retry is refused, the session cancelled by then.
    await stack().control('PUT', '/faults', {
      operation: 'CancelSession',
      dropResponseRate: 1,
      count: 1,
      sessionId,
    });
    await expect(handle.result()).resolves.toMatchObject({ status: 'failed', errorCode: 'SessionNotFound' });
    expect(await counted(sessionId, 'CancelSession')).toBe(2);
  }, 30_000);

  // The first answer is the poll's fetch along (it leaves the results to their fetch), the
  // second the results fetch's first attempt.
  it.each([
    ['without identity data', { mergeBody: { identityData: null } }],
    ['404 (a replica behind)', { errorRate: 1, errorStatus: 404 }],
  ])(
    'asks again for results answered %s, and delivers them',
    async (_answer, fault) => {
      await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
      await stack().control('PUT', '/faults', { operation: 'GetSessionResult', ...fault, count: 2 });
      const { handle } = await stack().idv.startVerification(
        stack().request({ results: 'data', redactAfter: 'never', ...fast }),
      );
      const outcome = await handle.result();
      expect(outcome).toMatchObject({ status: 'succeeded' });
      expect(outcome.identity).toBeDefined();
    },
    30_000,
  );

  it('answers a second cancel with VerificationEndedError while the first one’s clean-up runs', async () => {
    await stack().control('PUT', '/faults', { operation: 'GetSessionResult', latencyMs: 1_500, count: 1 });
    // With attachments, the results are fetched after the outcome, by an activity of their own.
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({
        results: 'data+attachments',
        redactAfter: 'never',
        polling: { initialMs: 200, maxMs: 500 },
      }),
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await handle.redirectCaptured();
    // While the results are being fetched the verification has ended but the workflow runs on.
    const ended = async () => (await handle.progress()).status !== 'pending';
    await eventually(async () => ((await ended()) ? true : undefined), 'the outcome');
    const error: unknown = await handle.cancel('too late').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerificationEndedError);
    expect(error).not.toBeInstanceOf(WorkflowUpdateFailedError);
    await handle.result();
    await expect(handle.cancel('later still')).rejects.toBeInstanceOf(VerificationEndedError);
  }, 30_000);

  it('redacts a running verification by cancelling it first', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', polling: { initialMs: 200, maxMs: 500 } }),
    );
    const report = await stack().idv.redactVerification(handle.reference);
    expect(report).toMatchObject({ sessionId: nextStep.sessionId, redactedAtService: true });
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
    expect(view).toMatchObject({
      outcome: { done: true, errorCode: 'Canceled' },
      redacted: { by: 'request' },
    });
  }, 30_000);

  it('redacts results due right after delivery once the caller confirms it, not before', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ results: 'data', redactAfter: 0, ...fast }),
    );
    const first = await handle.result({ confirmDelivery: false });
    expect(first.identity).toMatchObject({ person: { familyName: 'Lovelace' } });
    const redaction = stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`);
    // Waiting for the delivery: the data is still there for a second read.
    expect((await redaction.describe()).status.name).toBe('RUNNING');
    expect((await handle.result({ confirmDelivery: false })).identity).toBeDefined();
    await handle.confirmDelivery(nextStep.sessionId);
    await expect(redaction.result()).resolves.toMatchObject({
      dataKeyDestroyed: true,
      redactedAtService: true,
    });
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded', identityRedacted: true });
  }, 30_000);

  it('takes a session the service answers 410 Gone for as one it no longer knows, and redacts', async () => {
    const { sessionId } = await finishedVerification();
    for (const operation of ['RedactSession', 'GetSession'])
      await stack().control('PUT', '/faults', { operation, errorRate: 1, errorStatus: 410, sessionId });
    const report = await stack().idv.redactNow(sessionId);
    expect(report).toMatchObject({ redactedAtService: false, dataKeyDestroyed: true });
  }, 30_000);

  // The interface defines no 404: one answered to a call that ends or redacts a session the
  // service still serves (a gateway, a replica behind) must not count as the session gone.
  it('redacts a session whose RedactSession answered 404 while the service still holds it', async () => {
    const { sessionId } = await finishedVerification();
    await answers404('RedactSession', sessionId, 1);
    const report = await stack().idv.redactNow(sessionId);
    expect(report).toMatchObject({ redactedAtService: true, dataKeyDestroyed: true });
    const view = await stack().control('GET', `/sessions/${sessionId}`);
    expect(view.redacted).not.toBeNull();
  }, 30_000);

  it('takes a finished session whose RedactSession keeps answering 404 as redacted already', async () => {
    // A service that serves a session it redacted (by its own period, or a first answer lost)
    // and answers its redaction 404: not a week of tries and a give-up.
    const { sessionId } = await finishedVerification();
    await answers404('RedactSession', sessionId);
    const report = await stack().idv.redactNow(sessionId);
    expect(report).toMatchObject({ redactedAtService: false, dataKeyDestroyed: true });
    expect(await counted(sessionId, 'RedactSession')).toBeGreaterThanOrEqual(3);
  }, 30_000);

  it('counts only 404s toward believing a redaction, not failures before it', async () => {
    // An outage (503s), then one passing 404: the next attempt redacts.
    const { sessionId } = await finishedVerification();
    await stack().control('PUT', '/faults', {
      operation: 'RedactSession',
      errorRate: 1,
      errorStatus: 503,
      sessionId,
      count: 2,
    });
    const redacting = stack().idv.redactNow(sessionId);
    await eventually(
      async () => ((await counted(sessionId, 'RedactSession')) >= 2 ? true : undefined),
      'two failed redactions',
    );
    await answers404('RedactSession', sessionId, 1);
    await expect(redacting).resolves.toMatchObject({ redactedAtService: true });
    expect(await counted(sessionId, 'RedactSession')).toBe(4);
  }, 30_000);

  it('ends a session whose CancelSession answered 404 while it runs', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', ...fast }),
    );
    const { sessionId } = nextStep;
    await answers404('CancelSession', sessionId, 1);
    await handle.cancel();
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    const ended = async () => {
      const view = await stack().control('GET', `/sessions/${sessionId}`);
      return (view.outcome as { done: boolean }).done ? view : undefined;
    };
    expect(await eventually(ended, 'the session ended at the service')).toMatchObject({
      outcome: { done: true, errorCode: 'Canceled' },
    });
  }, 30_000);

  it('ends a session whose CancelSession and the read right after both answered 404 while it runs (a replica behind)', async () => {
    // No poll meanwhile: the read's one 404 is the cancel's check's.
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', polling: { initialMs: 60_000, maxMs: 60_000 } }),
    );
    const { sessionId } = nextStep;
    await answers404('CancelSession', sessionId, 1);
    await answers404('GetSession', sessionId, 1);
    await handle.cancel();
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    const view = await stack().control('GET', `/sessions/${sessionId}`);
    expect(view).toMatchObject({ outcome: { done: true, errorCode: 'Canceled' } });
  }, 60_000);

  it('destroys the data key when a session is redacted by its id alone', async () => {
    const { handle, sessionId } = await finishedVerification();
    const report = await stack().idv.redactNow(sessionId);
    expect(report).toMatchObject({ redactedAtService: true, dataKeyDestroyed: true });
    await expect(handle.result()).resolves.toMatchObject({ identityRedacted: true });
  }, 30_000);

  it('destroys the session’s own data key when a redaction names another', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    const started = async () =>
      (
        await stack().idv.startVerification(
          stack().request({ results: 'data', redactAfter: 'never', ...fast }),
        )
      ).handle;
    const [own, other] = await Promise.all([started(), started()]);
    await Promise.all([own.result(), other.result()]);
    const ownProgress = await own.progress();
    const { dataKeyId: otherKey } = await other.progress();
    // A caller's key that is not the session's (a record naming the key of a start that lost a
    // race, a mistake): the session's own key, named by its claim, must go all the same.
    await stack().idv.redactNow(ownProgress.sessionId as string, otherKey);
    expect((await stack().store.dataKeys.get(ownProgress.dataKeyId))?.state).toBe('destroyed');
  }, 30_000);

  // Paths an independent review of the workflow found still open.
  it('hands a session the service refused to cancel to a child that ends it', async () => {
    const { handle, nextStep } = await cancelRefused('never', 1);
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    await stack().client.workflow.getHandle(`idv-end-${nextStep.sessionId}`).result();
    const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
    expect(view).toMatchObject({ outcome: { done: true, errorCode: 'Canceled' }, redacted: null });
  }, 30_000);

  it('ends a session the service refused to cancel when the caller redacts at once', async () => {
    const { handle, nextStep } = await cancelRefused('1d', 2);
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    // The redaction child's own first cancel was refused too: it waits an hour to try again.
    await eventually(
      async () => ((await counted(nextStep.sessionId, 'CancelSession')) >= 2 ? true : undefined),
      'the child’s refused cancel',
    );
    // The caller's redaction replaces the waiting one: it must still end the live session.
    await stack().idv.redactVerification(handle.reference);
    const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
    expect(view).toMatchObject({
      outcome: { done: true, errorCode: 'Canceled' },
      redacted: { by: 'request' },
    });
  }, 30_000);

  it('destroys the data key at its due time while the service refuses to end the session', async () => {
    // Refused for good: the verification and then its redaction child keep trying, hourly.
    const { handle, nextStep } = await cancelRefused('0s');
    const { dataKeyId } = await handle.progress();
    const redaction = stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`);
    const destroyed = async () =>
      (await stack().store.dataKeys.get(dataKeyId))?.state === 'destroyed' ? true : undefined;
    await eventually(destroyed, 'the data key destroyed');
    // The key goes first (what it sealed is unreadable from then on), then the vault's entry.
    const accessKeyGone = () =>
      stack()
        .store.vault.accessKey(nextStep.sessionId)
        .then(
          () => undefined,
          (error: unknown) => error,
        );
    expect(await eventually(accessKeyGone, 'the access key deleted')).toMatchObject({
      message: expect.stringMatching(/no results access key/),
    });
    expect((await redaction.describe()).status.name).toBe('RUNNING');
    await redaction.terminate('test over');
    await stack().control('DELETE', '/faults');
  }, 30_000);

  it('erases at its due time a redaction cancelled before it is due, cutting only its steps at the service short', async () => {
    const request = stack().request({ redactAfter: '10s', ...fast });
    const { handle, nextStep } = await stack().idv.startVerification(request);
    // An earlier start under the reference whose key the record names as superseded (its sealed
    // input may sit in a caller's history): the cancelled redaction destroys it too.
    const earlier = await stack().prepare(stack().request({ reference: request.reference }));
    await stack().store.records.restarted(request.reference, {
      dataKeyId: earlier.dataKeyId,
      startedAt: new Date().toISOString(),
    });
    await stack().control('PUT', '/faults', { operation: 'CancelSession', errorRate: 1, errorStatus: 403 });
    await handle.cancel('customer left');
    const { dataKeyId } = await handle.progress();
    const redaction = stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`);
    await eventually(
      async () =>
        (await redaction.describe().catch(() => undefined))?.status.name === 'RUNNING' ? true : undefined,
      'the redaction waiting',
    );
    expect((await stack().store.dataKeys.get(dataKeyId))?.state).not.toBe('destroyed');
    // The cancel cuts the ending's week of tries short, not the erasure, which comes at its due
    // time (the cancel starts the delayed redaction at once).
    await redaction.cancel();
    expect((await stack().store.dataKeys.get(dataKeyId))?.state).not.toBe('destroyed');
    const error: unknown = await redaction.result().catch((e: unknown) => e);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await stack().store.dataKeys.get(dataKeyId))?.state).toBe('destroyed');
    expect((await stack().store.dataKeys.get(earlier.dataKeyId))?.state).toBe('destroyed');
    await expect(stack().store.vault.accessKey(nextStep.sessionId)).rejects.toThrow(/no results access key/);
    await stack().control('DELETE', '/faults');
  }, 30_000);

  it('deletes the local data of a session even while the service refuses its redaction', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    await stack().control('PUT', '/faults', { operation: 'RedactSession', errorRate: 1, errorStatus: 401 });
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ results: 'data+attachments', redactAfter: '0s', ...fast }),
    );
    const outcome = await handle.result();
    expect(outcome.attachments?.length).toBeGreaterThan(0);
    const redaction = stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`);
    const files = () => readdir(join(stack().dataDir, 'blobs', nextStep.sessionId)).catch(() => []);
    await eventually(async () => ((await files()).length === 0 ? true : undefined), 'the local data deleted');
    // The refused redaction is tried again later, not given up: the workflow still runs.
    expect((await redaction.describe()).status.name).toBe('RUNNING');
    await redaction.terminate('test over');
  }, 30_000);

  // Native challenge sessions are checked every 30 s at most often.
  it('notices a native challenge session the user abandoned, long before the deadline', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      nativeChallenge({ timeout: '1h', ...fast }),
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/abandon`);
    await expect(handle.result()).resolves.toMatchObject({ status: 'failed', errorCode: 'UserAbandoned' });
  }, 60_000);

  it('refreshes a step the service always says is due at most twice per its lifetime', async () => {
    const past = { nextStep: { refresh: { refreshAfter: '2000-01-01T00:00:00Z' } } };
    await stack().control('PUT', '/faults', { operation: 'RefreshStepContent', mergeBody: past });
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 4 });
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    await eventually(
      async () => ((await counted(nextStep.sessionId, 'RefreshStepContent')) >= 2 ? true : undefined),
      '2 refreshes',
    );
    // The first comes when the created step is due (at 80 % of its 4 s); each refreshed one is
    // due already, and the next waits half its lifetime (before: one a second). Timed by the
    // workflow's own scheduling, not by when this test noticed.
    const { events } = await stack().client.workflow.getHandle(handle.workflowId).fetchHistory();
    const [first, second] = (events ?? [])
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'refreshStep')
      .map((event) => Number(event.eventTime?.seconds ?? 0) * 1_000 + (event.eventTime?.nanos ?? 0) / 1e6);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(1_500);
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
  }, 30_000);

  /** A refresh that answers 503 for good: each one retried for its whole bound (minutes). */
  const refreshesFailing = async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 1 });
    await stack().control('PUT', '/faults', {
      operation: 'RefreshStepContent',
      errorRate: 1,
      errorStatus: 503,
    });
  };
  /** The refreshes the workflow asked to cancel (it gave way to the deadline or the caller's cancel). */
  const refreshesCancelled = async (handle: VerificationHandle) => {
    const events = (await handle.workflow.fetchHistory()).events ?? [];
    const refreshes = new Set(
      events
        .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'refreshStep')
        .map((event) => String(event.eventId)),
    );
    return events.filter(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED &&
        refreshes.has(String(event.activityTaskCancelRequestedEventAttributes?.scheduledEventId)),
    ).length;
  };

  it('ends at its deadline while an automatic step refresh keeps failing, not when the refresh gives up', async () => {
    await refreshesFailing();
    const { handle, nextStep } = await stack().idv.startVerification(mobile({ timeout: '6s' }));
    // The refresh (due 0.8 s after creation) retries for 5 minutes; the deadline does not wait for it.
    await expect(handle.result()).resolves.toMatchObject({ status: 'timed-out' });
    expect(await counted(nextStep.sessionId, 'CancelSession')).toBe(1);
    expect(await refreshesCancelled(handle)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('learns the outcome from the poll while an automatic step refresh keeps failing', async () => {
    await refreshesFailing();
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    await calls(nextStep.sessionId, 'RefreshStepContent', 1);
    // The refresh retries for 5 minutes: the poll's answer must not wait for it.
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect(await refreshesCancelled(handle)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('checks at once when the user comes back while an automatic step refresh keeps failing', async () => {
    await refreshesFailing();
    const { handle, nextStep } = await stack().idv.startVerification(
      mobile({ polling: { initialMs: 60_000, maxMs: 60_000 } }),
    );
    await calls(nextStep.sessionId, 'RefreshStepContent', 1);
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    // The poll's first look is a minute away: only the return's check can learn it in time.
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect(await counted(nextStep.sessionId, 'GetSession')).toBe(1);
  }, 30_000);

  it('answers the returns that come while a return’s check waits for its answer with that check', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', polling: { initialMs: 60_000, maxMs: 60_000 } }),
    );
    const { sessionId } = nextStep;
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    await stack().control('PUT', '/faults', { operation: 'GetSession', latencyMs: 2_000, sessionId });
    await handle.redirectCaptured();
    await calls(sessionId, 'GetSession', 1);
    // The user reloads the return page: each return must not start the check again.
    for (let n = 0; n < 3; n += 1) await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect(await counted(sessionId, 'GetSession')).toBe(1);
  }, 30_000);

  it("takes the caller's cancel while an automatic step refresh keeps failing", async () => {
    await refreshesFailing();
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    await eventually(
      async () => ((await counted(nextStep.sessionId, 'RefreshStepContent')) >= 1 ? true : undefined),
      'the refresh under way',
    );
    await handle.cancel('the user left');
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    expect(await counted(nextStep.sessionId, 'CancelSession')).toBe(1);
    expect(await refreshesCancelled(handle)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('does not refresh in a loop when the service gives a refresh time in the past', async () => {
    await stack().control('PUT', '/faults', {
      operation: 'RefreshStepContent',
      mergeBody: { nextStep: { refresh: { refreshAfter: '2000-01-01T00:00:00Z' } } },
    });
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 1 });
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    await eventually(
      async () => ((await counted(nextStep.sessionId, 'RefreshStepContent')) >= 2 ? true : undefined),
      'two refreshes',
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    // Two refreshes are at least one minimum gap apart; a loop would have made hundreds.
    expect(await counted(nextStep.sessionId, 'RefreshStepContent')).toBeLessThanOrEqual(5);
  }, 30_000);
});
