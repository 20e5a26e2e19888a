import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import { POLL_PRIORITY_KEY } from '../domain/polling';

// Temporal retries; activities only classify. Non-retryable types come from activities/failures.
// Every proxy is bounded, directly or by the workflow cancelling it, so no call outlives the
// verification's deadline by more than its own bound.
const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' };

/** Creation: retried until it answers, the deadline passes or a cancel comes (the workflow races them). */
export const creation = proxyActivities<VerificationActivities>({ startToCloseTimeout: '1 minute', retry });

/** Checks, refreshes, native challenge and cancel while the session runs or is being ended. */
export const sessionCalls = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '5 minutes',
  retry,
});

/** Result fetching: may stream several attachments; after an hour the results count as unavailable. */
export const results = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry,
});

/**
 * Polls: one GetSession per attempt of `pollSession`, the next attempt the next poll (its delay
 * is the failure's `nextRetryDelay`). The workflow cancels it at its deadline; the bound after
 * that is a safety net, and a poll that ran out of it is told apart by its `SessionRunning` type.
 */
export function sessionPolls(remainingMs: number) {
  return proxyActivities<VerificationActivities>({
    // A redirect, a cancel or the deadline acts at once: an attempt under way (a read, bounded by
    // its minute) is not waited for; its answer, once cancelled, is dropped by the server.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    priority: { priorityKey: POLL_PRIORITY_KEY },
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: Math.max(0, remainingMs) + 10 * 60_000,
    retry,
  });
}

/**
 * Before `sessionPolls` (runs started then replay it): the long poll, bounded by the verification deadline. It heartbeats every few seconds whatever
 * it does (see POLL_HEARTBEAT_EVERY_MS), so the heartbeat timeout only detects a dead worker;
 * a slow GetSession ends in the HTTP client's own TimeoutError.
 */
export function poller(remainingMs: number) {
  return proxyActivities<VerificationActivities>({
    startToCloseTimeout: Math.max(0, remainingMs) + 60_000,
    heartbeatTimeout: '20 seconds',
    retry,
  });
}

/** The webhook registry's calls to the earlier platform: an update waits for them, so they are short. */
export const agentCalls = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry,
});
