import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  ParentClosePolicy,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  allHandlersFinished,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { type AttachmentRef, type VerificationInput, type VerificationOutcome } from '../domain/verification';
import { api, poller, results } from './activity-proxies';
import {
  cancelUpdate,
  nextStepUpdate,
  progressQuery,
  redirectCapturedSignal,
  refreshStepUpdate,
  submitNativeChallengeUpdate,
} from './messages';
import { IdvProfileId, IdvProvider, IdvSessionId, IdvStatus } from './search-attributes';
import { sessionRedaction } from './session-redaction';
import { SessionState } from './session-state';

const DEFAULT_POLLING = { initialMs: 1_000, maxMs: 10_000 };

/**
 * One identity verification: creates the Direct Provider Session, exposes its step, learns the
 * outcome with few API calls (polling in one heartbeating activity, re-checked at once on a
 * redirect), refreshes expiring steps, cancels at the deadline, fetches results and schedules
 * the redaction. Workflow ID: `idv-<reference>`.
 */
export async function verificationSession(input: VerificationInput): Promise<VerificationOutcome> {
  const state = new SessionState(input, Date.now());
  registerHandlers(state);
  upsertSearchAttributes([
    { key: IdvProfileId, value: input.verificationProfileId },
    { key: IdvProvider, value: input.provider },
    { key: IdvStatus, value: 'starting' },
  ]);

  const sessionId = await createSession(input, state);
  const deadline = CancellationScope.cancellable(async () => {
    await sleep(Math.max(0, Date.parse(state.progress.deadline) - Date.now()));
    state.deadlinePassed = true;
  });
  deadline.catch(() => undefined);
  const refreshing = keepStepFresh(state, sessionId);
  await learnOutcome(input, state, sessionId);
  await refreshing;

  const ending = state.ending ?? { status: 'failed' as const };
  upsertSearchAttributes([{ key: IdvStatus, value: ending.status }]);
  const outcome: VerificationOutcome = { ...ending, sessionId };
  if (ending.status === 'succeeded' && input.results !== 'none') {
    const fetched = await results.fetchResults({ sessionId, mode: input.results });
    state.count('GetSessionResult');
    if (fetched.identity) outcome.identity = fetched.identity;
    if (fetched.attachments) {
      outcome.attachments = fetched.attachments satisfies AttachmentRef[];
      state.count('GetAttachment', fetched.attachments.length);
    }
  }
  if (input.redactAfter !== 'never') await scheduleRedaction(sessionId, input.redactAfter);
  await condition(allHandlersFinished);
  return outcome;
}

async function createSession(input: VerificationInput, state: SessionState): Promise<string> {
  try {
    const created = await api.createSession(input);
    state.count('CreateDirectProviderSession');
    state.created(created.sessionId, created.collectionMethod, created.nextStep, Date.now());
    upsertSearchAttributes([
      { key: IdvSessionId, value: created.sessionId },
      { key: IdvStatus, value: 'pending' },
    ]);
    if (created.orphanWindows.length > 0) {
      void sweepOrphans(input, state, created.sessionId, created.orphanWindows);
    }
    return created.sessionId;
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
    const failure = ApplicationFailure.create({
      type: 'SessionNotCreated',
      message: `the session could not be created: ${cause?.message ?? String(error)}`,
      nonRetryable: true,
      cause: error instanceof Error ? error : undefined,
    });
    state.createFailure = failure;
    upsertSearchAttributes([{ key: IdvStatus, value: 'failed' }]);
    throw failure;
  }
}

async function sweepOrphans(
  input: VerificationInput,
  state: SessionState,
  keepSessionId: string,
  windows: Array<{ fromMs: number; toMs: number }>,
): Promise<void> {
  // Wait until every concurrent create of the deployment has had time to claim its session.
  await sleep(input.orphanSweepDelayMs ?? 60_000);
  const cancelled = await api.cancelOrphanedSessions({
    verificationProfileId: input.verificationProfileId,
    windows,
    keepSessionId,
  });
  state.progress.orphansCancelled += cancelled.length;
  state.count('CancelSession', cancelled.length);
}

async function learnOutcome(input: VerificationInput, state: SessionState, sessionId: string): Promise<void> {
  const polling = { ...DEFAULT_POLLING, ...input.polling };
  const { awaitSessionOutcome } = poller({ deadlineMs: input.timeout, maxIntervalMs: polling.maxMs });
  // A native challenge ends only through our own submission (or at the deadline): no polling.
  const polls = state.progress.collectionMethod !== 'SubmitNativeChallengeResponse';
  while (!state.done) {
    const scope = new CancellationScope();
    const polled = polls ? scope.run(() => awaitSessionOutcome({ sessionId, ...polling })) : undefined;
    polled?.then(
      (result) => {
        state.count('GetSession', result.polls);
        state.finish(result.state, Date.now());
      },
      () => undefined,
    );
    await condition(() => state.done || state.redirectPending || state.deadlinePassed);
    if (!state.done) scope.cancel();
    await polled?.catch((error: unknown) => {
      if (!isCancellation(error)) throw error;
    });
    if (state.done) break;
    if (state.deadlinePassed) {
      state.count('CancelSession');
      state.finish(await api.cancelSession(sessionId), Date.now(), true);
    } else if (state.redirectPending) {
      state.redirectPending = false;
      state.count('GetSession');
      state.finish(await api.checkSession(sessionId), Date.now());
    }
  }
}

async function keepStepFresh(state: SessionState, sessionId: string): Promise<void> {
  while (!state.done) {
    const refresh = state.progress.nextStep?.refresh;
    if (!refresh) return;
    const current = state.progress.nextStep;
    const waitMs = Math.max(0, Date.parse(refresh.refreshAfter) - Date.now());
    const interrupted = await condition(() => state.done || state.progress.nextStep !== current, waitMs);
    if (interrupted) continue;
    try {
      state.count('RefreshStepContent');
      state.step(await api.refreshStep(sessionId), Date.now());
    } catch (error) {
      // The session may have ended meanwhile: the outcome loop will learn it.
      if (state.done) return;
      throw error;
    }
  }
}

async function scheduleRedaction(sessionId: string, delayMs: number): Promise<void> {
  try {
    await startChild(sessionRedaction, {
      workflowId: `idv-redact-${sessionId}`,
      args: [{ sessionId, delayMs }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

function registerHandlers(state: SessionState): void {
  setHandler(progressQuery, () => state.progress);
  setHandler(redirectCapturedSignal, () => {
    state.redirectPending = true;
  });
  setHandler(nextStepUpdate, async () => {
    await condition(() => state.sessionId !== undefined || state.createFailure !== undefined);
    const { sessionId, nextStep, collectionMethod, status, reference } = state.progress;
    if (!sessionId || !nextStep || !collectionMethod) {
      throw ApplicationFailure.create({
        type: 'SessionNotCreated',
        message: state.createFailure?.message ?? 'no session',
      });
    }
    return { reference, sessionId, nextStep, collectionMethod, status };
  });
  setHandler(
    refreshStepUpdate,
    async () => {
      const sessionId = state.sessionId as string;
      state.count('RefreshStepContent');
      state.step(await api.refreshStep(sessionId), Date.now());
      return state.progress.nextStep as NonNullable<typeof state.progress.nextStep>;
    },
    {
      validator: () => {
        if (!state.sessionId || state.done) throw new Error('there is no running session to refresh');
        if (!state.progress.nextStep?.refresh) throw new Error('the current step has no refreshable content');
      },
    },
  );
  setHandler(
    submitNativeChallengeUpdate,
    async (responseToken) => {
      state.count('SubmitNativeChallengeResponse');
      state.finish(
        await api.submitNativeChallenge({ sessionId: state.sessionId as string, responseToken }),
        Date.now(),
      );
      return state.progress;
    },
    {
      validator: (responseToken) => {
        if (typeof responseToken !== 'string' || responseToken.length === 0)
          throw new Error('responseToken is required');
        if (!state.sessionId || state.done) throw new Error('there is no running session');
        if (state.progress.nextStep?.method !== 'PerformNativeChallenge') {
          throw new Error(
            `the session's step is ${state.progress.nextStep?.method ?? 'unknown'}, not a native challenge`,
          );
        }
      },
    },
  );
  setHandler(
    cancelUpdate,
    async (_reason: string) => {
      await condition(() => state.sessionId !== undefined || state.createFailure !== undefined);
      if (state.sessionId && !state.done) {
        state.count('CancelSession');
        state.finish(await api.cancelSession(state.sessionId), Date.now());
      }
      return state.progress;
    },
    {
      validator: (_reason: string) => {
        if (state.done) throw new Error(`the verification has already ended (${state.progress.status})`);
      },
    },
  );
}
