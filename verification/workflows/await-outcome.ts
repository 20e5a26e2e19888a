import { condition, isCancellation, log, patched, workflowInfo } from '@temporalio/workflow';
import type { PolledOutcome, PollingPlan } from '../activities/polling-activities';
import type { ResultsAlong } from '../activities/result-activities';
import type { CheckedSession } from '../activities/session-activities';
import type { VerificationInput } from '../domain/verification';
import { verificationErrorCodes } from '../domain/outcome';
import { DEFAULT_POLLING } from '../domain/polling';
import {
  WAITS_GIVE_WAY,
  WAITS_GIVE_WAY_TO_OUTCOME,
  KEEP_NEWER_STEP,
  REFRESH_GAP_FROM_STEP_LIFETIME,
  REFRESH_TRIED_AGAIN,
  SESSION_CALLS_BOUND_MS,
  sessionCalls,
  sessionPolls,
  UNKNOWN_SESSION_CONFIRMED,
} from './activity-proxies';
import { endAtService } from './end-at-service';
import { activityFailureType, failedForGood } from '../../common/failure-types';
import { refusalCode, sessionUnknown } from '../shared/failure-types';
import { OwnedActivity, type Settled } from '../../common/owned-activity';
import { MAX_REFRESH_REFUSALS, MIN_REFRESH_GAP_MS, type SessionState } from './session-state';

/** A native challenge session is checked at most this often (each check writes history). */
const NATIVE_CHECK_FLOOR_MS = 30_000;
/** A refresh that failed for a while is tried again this much later. */
const REFRESH_RETRY_MS = 30_000;
/** Our own bound, in case the server's continue-as-new suggestion never comes. */
const MAX_HISTORY_EVENTS = 10_000;

/** True when this run's history should end: the server suggests it, or it is long anyway. */
export function historyFull(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= MAX_HISTORY_EVENTS;
}

/** After a read's 404, the session is read once more this much later before the 404 is believed. */
const READ_AGAIN_AFTER_MS = 5_000;

/**
 * A session a read was told is unknown (a 404, which the interface does not define): no poll
 * runs and a 404 from a read before is set aside until the session is read once more a little
 * later; a 404 then is believed, and the session's ending decides (its own 404 proves the session
 * gone, a session still there is ended, one that finished meanwhile keeps its outcome). Histories
 * before the patch ended the verification at the first 404.
 */
class UnknownSession {
  #readAgainAtMs: number | undefined;
  /** A 404 came after the read again was due: the session's ending decides. */
  believed = false;

  /** A read answered 404: true when this object takes it from here; false to end at once (old histories). */
  take(): boolean {
    if (!patched(UNKNOWN_SESSION_CONFIRMED)) return false;
    if (this.#readAgainAtMs === undefined) this.#readAgainAtMs = Date.now() + READ_AGAIN_AFTER_MS;
    else if (Date.now() >= this.#readAgainAtMs) this.believed = true;
    return true;
  }

  /** A 404 waits for the session to be read again (no poll runs meanwhile). */
  get doubting(): boolean {
    return this.#readAgainAtMs !== undefined;
  }

  /** When the session is to be read again (undefined: no read is waited for). */
  get readAgainAtMs(): number | undefined {
    return this.believed ? undefined : this.#readAgainAtMs;
  }

  /** The read again answered, or failed for a while: a later 404 is doubted again. */
  settled(): void {
    if (!this.believed) this.#readAgainAtMs = undefined;
  }

  /** A read answered the session's state: whatever a 404 said before, it is there. */
  known(): void {
    this.believed = false;
    this.#readAgainAtMs = undefined;
  }
}

/**
 * Records what the service said of the session: a session it no longer knows (see
 * {@link UnknownSession}) or a refusal for good or an answer it cannot read (`ServiceRefused`,
 * `UnreadableAnswer`) ends the verification: an outcome, not a failed workflow.
 */
function learned(state: SessionState, error: unknown, unknown: UnknownSession): void {
  if (isCancellation(error)) throw error;
  if (sessionUnknown(error)) {
    if (!unknown.take()) state.sessionUnknown(Date.now());
  } else state.end({ status: 'failed', errorCode: refusalCode(error) }, Date.now());
}

/** What a call of the loop gives way to, besides the deadline and the caller's cancel (see `givingWay`). */
interface GivesWayTo {
  /** The poll's answer waits. */
  polled?: () => boolean;
  /** The user came back; false for the return's own check (returns meanwhile make no other). */
  returns?: boolean;
}

/**
 * Runs a call of the loop (a check, a refresh) until it settles, or until the deadline passes, the
 * caller cancels, or the outcome comes nearer (the outcome known, or what `to` says): then it is
 * cancelled (not waited for) and undefined comes back, and the loop takes what came. A timer is
 * set only when the deadline may come before the call's own bound.
 */
async function givingWay<T>(
  state: SessionState,
  call: () => Promise<T>,
  to: GivesWayTo = {},
): Promise<Settled<T> | undefined> {
  const polled = to.polled ?? (() => false);
  const returns = to.returns ?? true;
  const untilDeadlineMs = state.deadlineMs - Date.now();
  // The patches are asked where they decide, so a call that settles first records no marker: when
  // the deadline may come first (its timer goes with the call), or once a cancel or the outcome
  // comes while the call runs. Histories before them waited for the call.
  const deadlineFirst = untilDeadlineMs <= SESSION_CALLS_BOUND_MS;
  if (deadlineFirst && !patched(WAITS_GIVE_WAY))
    return await call().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  const owned = new OwnedActivity<T>();
  owned.start(call);
  const cancelCame = () => state.cancelRequested !== undefined && (deadlineFirst || patched(WAITS_GIVE_WAY));
  const outcomeCame = () =>
    (state.done || (returns && state.redirectPending) || polled()) && patched(WAITS_GIVE_WAY_TO_OUTCOME);
  try {
    const given = () => owned.settled || cancelCame() || outcomeCame();
    if (!deadlineFirst) await condition(given);
    else await condition(given, Math.max(1, untilDeadlineMs), { summary: 'until the deadline' });
    return owned.take();
  } finally {
    await owned.stop();
  }
}

/**
 * One GetSession now. Beside a running poll only a session the service no longer knows ends the
 * verification; as the only check (`ends-on-refusal`, native challenges) a refusal for good ends
 * it too, as it would end the poll.
 */
async function checkNow(
  state: SessionState,
  check: () => Promise<CheckedSession>,
  unknown: UnknownSession,
  refusal: 'poll-goes-on' | 'ends-on-refusal' = 'poll-goes-on',
  givesWayTo?: GivesWayTo,
): Promise<void> {
  state.count('GetSession');
  const answer = await givingWay(state, check, givesWayTo);
  if (answer === undefined) return;
  if ('value' in answer) {
    state.finish(answer.value, Date.now());
    unknown.known();
    return;
  }
  const { error } = answer;
  const ends = refusal === 'ends-on-refusal' && failedForGood(error);
  if (isCancellation(error) || sessionUnknown(error) || ends) learned(state, error, unknown);
  else log.warn('checking the session failed', { failureType: activityFailureType(error) });
}

async function refreshNow(
  state: SessionState,
  sessionId: string,
  unknown: UnknownSession,
  polled: () => boolean,
): Promise<void> {
  state.count('RefreshStepContent');
  const answer = await givingWay(state, () => sessionCalls.refreshStep(sessionId), { polled });
  if (answer === undefined) return;
  if ('value' in answer) {
    state.step(answer.value, Date.now(), () => patched(KEEP_NEWER_STEP));
    return;
  }
  const { error } = answer;
  /** Tried again `againInMs` later, unless refused too often in a row (the give-up is logged and shown). */
  const refused = (againInMs: number) => {
    if (state.refreshRefused(Date.now(), againInMs) === 'stopped')
      log.warn('automatic step refreshes stopped: refused each time', {
        failureType: activityFailureType(error),
        refusals: MAX_REFRESH_REFUSALS,
      });
  };
  if (isCancellation(error) || sessionUnknown(error)) {
    learned(state, error, unknown);
    if (state.done) return;
    // The session is read again: the refresh is tried again with that read (a 404 believed ends
    // the verification; refusals stop refreshes as any do). Before the patch, they stopped here.
    if (patched(REFRESH_TRIED_AGAIN)) refused(READ_AGAIN_AFTER_MS);
    else state.refreshFailed(true, Date.now(), REFRESH_RETRY_MS);
    return;
  }
  log.warn('refreshing the step failed', { failureType: activityFailureType(error) });
  // The user may have finished meanwhile (the service refuses then): the poll will say. Refused
  // for good, it is tried again a few times (a refusal of one moment) before refreshes stop, at
  // half the step's lifetime (it must be refreshed within it), 1 to 30 s later.
  if (failedForGood(error) && patched(REFRESH_TRIED_AGAIN)) {
    const lifetimeMs = (state.progress.nextStep?.refresh?.timeToLiveSeconds ?? 0) * 1000;
    refused(Math.min(REFRESH_RETRY_MS, Math.max(MIN_REFRESH_GAP_MS, lifetimeMs / 2)));
  } else state.refreshFailed(failedForGood(error), Date.now(), REFRESH_RETRY_MS);
}

/**
 * Results `data` are fetched along by the check or the poll that finds the session succeeded
 * (see `ResultsAlong`); attachments, streamed into the store, by the results fetch of its own.
 */
function resultsAlongFor(input: VerificationInput): ResultsAlong | undefined {
  return input.results === 'data' ? { dataKeyId: input.dataKeyId } : undefined;
}

/** Starts the poll: a retried activity whose attempts make `attemptMs` of polls, bounded by the deadline (see `sessionPolls`). */
function startPoll(
  poll: OwnedActivity<PolledOutcome>,
  plan: PollingPlan,
  bounds: { deadlineMs: number; attemptMs: number },
): void {
  const { pollSession } = sessionPolls(bounds.deadlineMs - Date.now(), bounds.attemptMs);
  poll.start(() => pollSession(plan));
}

/**
 * Waits for the session's outcome: one owned poll in the background, an immediate check on a
 * redirect, step refreshes when due, the caller's cancel and the deadline; every one of them
 * handled here, in one loop. Resolves `ended` when the verification has its ending, or
 * `continue` when the history should continue as new (the poll stopped, the session running).
 */
export async function awaitOutcome(
  input: VerificationInput,
  state: SessionState,
): Promise<'ended' | 'continue'> {
  const sessionId = state.sessionId as string;
  const polling = { ...DEFAULT_POLLING, ...input.polling };
  // A native challenge ends through the submission: no poll is held for it, but a short check at
  // the slowest interval (a timer in between) notices a session that was abandoned, expired or
  // forgotten by the service.
  const holdsPoll = state.progress.collectionMethod !== 'SubmitNativeChallengeResponse';
  const checkEveryMs = Math.max(polling.maxMs, NATIVE_CHECK_FLOOR_MS);
  let checkAtMs = holdsPoll ? Number.POSITIVE_INFINITY : Date.now() + checkEveryMs;
  const poll = new OwnedActivity<PolledOutcome>();
  const pollAnswered = () => poll.settled;
  const unknown = new UnknownSession();
  // A poll whose retries ran out of their bound is not started again: the deadline (or a
  // redirect, which restarts it) decides instead.
  let pollRanOut = false;
  // Once the user came back, polls follow the fixed rule: a completion is near, whatever the
  // provider's learned times say.
  let afterReturn = false;
  const along = resultsAlongFor(input);
  const resultsAlong = along ? { resultsAlong: along } : {};
  const check = () => sessionCalls.checkSession(sessionId, resultsAlong);
  const returnCheck = () => sessionCalls.checkSession(sessionId, { ...resultsAlong, userReturned: true });
  const plan = (): PollingPlan => ({
    sessionId,
    initialMs: polling.initialMs,
    maxMs: polling.maxMs,
    ...(along ? { resultsAlong: along } : {}),
    provider: input.provider,
    startedAtMs: Date.parse(state.progress.startedAt),
    ...(afterReturn ? { afterReturn } : {}),
  });
  /** What the poll answered, if it has: the outcome, or why it stopped. */
  const takePolled = () => {
    const polled = poll.take();
    if (polled && 'value' in polled) {
      state.count('GetSession', polled.value.polls);
      const { state: found, results } = polled.value;
      state.finish(results ? { ...found, results } : found, Date.now());
    } else if (polled) {
      const { error } = polled;
      if (isCancellation(error) || sessionUnknown(error) || failedForGood(error))
        learned(state, error, unknown);
      else {
        // Retries that ran out of their bound (past the deadline, or a worker away that long):
        // the deadline or a redirect decides now, not a failed verification.
        pollRanOut = true;
        log.warn('polling stopped before the session ended', { failureType: activityFailureType(error) });
      }
    }
  };
  try {
    for (;;) {
      // A call that gave way to the poll's answer (see `givingWay`) leaves it here, first.
      if (poll.settled && patched(WAITS_GIVE_WAY_TO_OUTCOME)) takePolled();
      if (state.done) return 'ended';
      const deadlinePassed = Date.now() >= state.deadlineMs;
      if (state.cancelRequested !== undefined || deadlinePassed) {
        await poll.stop();
        await endAtService(state, state.cancelRequested !== undefined ? 'cancelled' : 'timed-out');
        continue;
      }
      if (state.redirectPending) {
        state.redirectChecked();
        await poll.stop(); // restarted afterwards at its initial interval: the user is active
        pollRanOut = false;
        afterReturn = true;
        // The poll is stopped; returns that come meanwhile are answered by this check.
        await checkNow(state, returnCheck, unknown, 'poll-goes-on', { returns: false });
        continue;
      }
      if (unknown.believed) {
        await poll.stop();
        await endAtService(state, 'failed', verificationErrorCodes.sessionNotFound);
        continue;
      }
      const readAgainAt = unknown.readAgainAtMs;
      if (readAgainAt !== undefined && Date.now() >= readAgainAt) {
        // As the only read of a native challenge session, a refusal for good ends it too.
        await checkNow(state, check, unknown, holdsPoll ? 'poll-goes-on' : 'ends-on-refusal');
        unknown.settled();
        continue;
      }
      if (Date.now() >= checkAtMs) {
        await checkNow(state, check, unknown, 'ends-on-refusal', { polled: pollAnswered });
        checkAtMs = Date.now() + checkEveryMs;
        continue;
      }
      const refreshAt = state.refreshAtMs(() => patched(REFRESH_GAP_FROM_STEP_LIFETIME));
      if (refreshAt !== undefined && Date.now() >= refreshAt) {
        await refreshNow(state, sessionId, unknown, pollAnswered);
        continue;
      }
      // (A read again due within seconds is waited for: the next run would start undoubting.)
      if (historyFull() && !unknown.doubting) return 'continue';
      if (holdsPoll && !poll.active && !pollRanOut && !unknown.doubting)
        startPoll(poll, plan(), { deadlineMs: state.deadlineMs, attemptMs: polling.attemptMs });
      const step = state.progress.nextStep;
      const wakeAt = Math.min(
        state.deadlineMs,
        refreshAt ?? Number.POSITIVE_INFINITY,
        checkAtMs,
        readAgainAt ?? Number.POSITIVE_INFINITY,
      );
      const why =
        wakeAt === state.deadlineMs
          ? 'the deadline'
          : wakeAt === checkAtMs
            ? 'a check of the session'
            : wakeAt === readAgainAt
              ? 'reading the session again after a 404'
              : 'a step refresh';
      state.waitsUntil(wakeAt, why);
      await condition(
        () =>
          state.done ||
          state.cancelRequested !== undefined ||
          state.redirectPending ||
          poll.settled ||
          state.progress.nextStep !== step ||
          (historyFull() && !unknown.doubting),
        Math.max(1, wakeAt - Date.now()),
        { summary: `until ${why}` },
      );
      takePolled();
    }
  } finally {
    await poll.stop();
  }
}
