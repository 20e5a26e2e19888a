import { ActivityCancellationType, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import { POLL_PRIORITY_KEY } from '../domain/polling';

// Temporal retries; activities only classify. Non-retryable types come from activities/failures.
// Every proxy is bounded, directly or by the workflow cancelling it, so no call outlives the
// verification's deadline by more than its own bound.
export const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' };

/**
 * The patch under which a workflow's input is checked by an activity (its schema, with zod,
 * never loads in the workflow sandbox, where each workflow would evaluate it again).
 */
export const INPUT_CHECKED_BY_ACTIVITY = 'input-checked-by-activity';

/**
 * The patch under which the clean-up starts the redaction and closes the creation in one workflow
 * task: each task in series waits its turn behind every other verification's tasks, so under load
 * each one removed is what a returning user gains. (On a redirect, the poll's cancel and the
 * check already go out in one task: the poll is cancelled without waiting for the worker.)
 */
export const CLOSE_WHILE_REDACTION_STARTS = 'close-while-redaction-starts';

/**
 * The patch under which a verification that refuses its input tells `reportTo` it ended, as a
 * clean-up does: it told nothing before, and the workflow waiting for the report (an onboarding)
 * waited until the verification's deadline plus two hours. Asked on that way out only.
 */
export const ENDING_REPORTED_ON_REFUSAL = 'ending-reported-on-refusal';

/**
 * The patch under which a session a read (a poll, a check, a refresh) was told is unknown (404)
 * is read again before the 404 is believed, and then asked to end, whose answer decides: the
 * interface defines no 404, so only the ending's own answer proves the session gone.
 */
export const UNKNOWN_SESSION_CONFIRMED = 'unknown-session-confirmed';

/**
 * The patch under which automatic step refreshes are at least half the step's lifetime apart
 * (a refresh due already, as a service whose clock is behind ours says of every step, came
 * every second before).
 */
export const REFRESH_GAP_FROM_STEP_LIFETIME = 'refresh-gap-from-step-lifetime';

/**
 * The patch under which the main flow's waits give way to the deadline and to the caller's
 * cancel: a check or a refresh of the outcome's loop is cancelled rather than waited for (up to
 * its whole bound, minutes of retries while the service fails), and the wait for handlers before
 * continuing as new ends at the deadline (updates that call the service are refused meanwhile),
 * so neither ends the session late. A check or a refresh asks it only where it decides (the
 * deadline before the call's bound, or a cancel while the call runs), so most histories record
 * no marker.
 */
export const WAITS_GIVE_WAY = 'waits-give-way-to-deadline-and-cancel';

/**
 * The patch under which a check or an automatic refresh of the outcome's loop also gives way to
 * the outcome: the poll's answer, a handler's (a native challenge answered), the user's return.
 * Waited for before, a call the service kept failing held them for its whole bound (minutes),
 * once per retry of the call. Asked only when the outcome comes while such a call runs, so other
 * histories record no marker.
 */
export const WAITS_GIVE_WAY_TO_OUTCOME = 'waits-give-way-to-outcome';

/**
 * The patch under which a refresh refused (for good, or answered 404 while the session is read
 * again) is tried again rather than stopping automatic refreshes for the rest of the
 * verification: the step would expire and the user could not finish. Refreshes stop after
 * `MAX_REFRESH_REFUSALS` refusals with none succeeding between them, visibly; a refresh that
 * succeeds starts them again.
 */
export const REFRESH_TRIED_AGAIN = 'refresh-tried-again-after-refusal';

/**
 * The patch under which the redaction of a verification that took its session for gone (every
 * read, and the cancel, answered 404 over seconds) still ends the session first: a gateway's 404s
 * prove nothing, and a session redacted while live may gather data after. Asked only for such a
 * verification, so other histories record no marker.
 */
export const GONE_SESSION_ENDED_BY_REDACTION = 'gone-session-ended-by-redaction';

/**
 * The patch under which a refresh's answer replaces the step only when it expires later than the
 * step shown: the caller's refresh and an automatic one may answer in either order, and the
 * older answer, coming last, showed content the service had replaced. Asked only when an answer
 * is older than the step shown, so other histories record no marker.
 */
export const KEEP_NEWER_STEP = 'keep-newer-step';

/**
 * The patch under which a clean-up that could not close the verification's creation (the store
 * away for a minute) hands the close to a workflow of its own, not to the profile's orphan
 * sweep, whose list of closes is bounded and shared by every verification of the profile.
 */
export const CLOSE_BY_A_WORKFLOW_OF_ITS_OWN = 'close-by-a-workflow-of-its-own';

/**
 * Input checks: pure, in the worker's own process (a local activity, one marker in history and no
 * task of its own), three attempts at most.
 */
export const inputChecks = proxyLocalActivities<VerificationActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { ...retry, maximumAttempts: 3 },
});

/**
 * Creation: retried until it answers, the deadline passes or a cancel comes (the workflow races
 * them). It heartbeats, so a cancel reaches an attempt under way in seconds, and the workflow
 * waits until the attempt has ended: its record then says what became of it.
 */
export const creation = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '1 minute',
  // It heartbeats every second: this only notices a dead worker (a cancel reaches it within 8 s).
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry,
});

/** The orphan sweep's schedule, from the worker's settings (no service call): the sweep's and a creation close's. */
export const orphanSchedule = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '10 minutes',
});

/**
 * Closing a verification's creation, in its clean-up: a minute of retries, then a workflow of its
 * own is handed the close (the store is away), so the clean-up never waits on the store for long.
 */
export const creationCalls = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '20 seconds',
  scheduleToCloseTimeout: '1 minute',
  retry,
});

/**
 * The patch under which the clean-up closes the creation and starts the delayed redaction as
 * local activities: both are work of the worker's own (its store, its Temporal client), and as
 * activity tasks each cost a dispatch through the server and a workflow task of its own to hear
 * the answer, every verification (and under load, each a wait behind every other verification's
 * tasks before the outcome is known). Run in the workflow task that ends the wait, the close and
 * the start answer in it.
 */
export const CLEAN_UP_LOCALLY = 'clean-up-in-the-workflow-task';

/**
 * The clean-up's calls in the worker's own process (see {@link CLEAN_UP_LOCALLY}). Bounded by
 * attempts, not by a schedule-to-close timeout: the SDK's local activities went on retrying long
 * past theirs (a store refusing every call, attempts for minutes while the workflow task
 * heartbeat). Five attempts of at most 10 s each, 1 to 8 s apart: under 70 s before the fallback.
 */
export const localCreationCalls = proxyLocalActivities<VerificationActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { ...retry, maximumAttempts: 5 },
});

/**
 * A refused start's data key, destroyed before the run fails: ten minutes of retries (the store
 * away), then the failure says the key is left.
 */
export const refusedStartKey = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '20 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry,
});

/** How long a check, a refresh, a submission or a cancel keeps trying. */
export const SESSION_CALLS_BOUND_MS = 5 * 60_000;

/** Checks, refreshes, native challenge and cancel while the session runs or is being ended. */
export const sessionCalls = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: SESSION_CALLS_BOUND_MS,
  retry,
});

/**
 * Result fetching: may stream several attachments; after an hour the results count as
 * unavailable. A cancelled fetch is waited for until it has stopped, so it never writes after
 * the clean-up (and the redaction it starts).
 */
export const results = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '10 minutes',
  // It heartbeats every second whatever it waits on, so this only notices a dead worker, and a
  // cancel reaches it within seconds.
  heartbeatTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 hour',
  summary: 'Fetches the results and attachments, sealed under the data key',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry,
});

/**
 * Polls: an attempt of `pollSession` is held by its worker and makes the polls that fit in its
 * start-to-close timeout, the next attempt the next ones (its delay is the handing back's
 * `nextRetryDelay`). The workflow cancels it at its deadline; the bound after that is a safety
 * net, and a poll that ran out of it is told apart by its `SessionRunning` type.
 */
export function sessionPolls(remainingMs: number, attemptMs: number) {
  return proxyActivities<VerificationActivities>({
    // A redirect, a cancel or the deadline acts at once: an attempt under way is not waited for;
    // its worker learns of the cancel at its next heartbeat, and a late answer is dropped.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    priority: { priorityKey: POLL_PRIORITY_KEY },
    // Shown in the UI beside the pending activity.
    summary: 'Polls the session: an attempt makes the polls its worker holds it for, its retry the next ones',
    // A worker holds an attempt between its polls for this long (see `HeldPolls`); one lost
    // with its worker is retried after it.
    startToCloseTimeout: attemptMs,
    scheduleToCloseTimeout: Math.max(0, remainingMs) + 10 * 60_000,
    retry,
  });
}
