import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { OverBudgetError, RateLimitedError } from '../api/http/errors';
import { pollIntervalMs, SESSION_RUNNING } from '../domain/polling';
import { type NormalisedSessionState } from '../domain/session-status';
import { type ActivityDeps } from './deps';
import { classified, MAX_RETRY_AFTER_MS } from './failures';
import { stateOf } from './wire-views';

/** How `awaitSessionOutcome` polls. */
export interface PollingPlan {
  sessionId: string;
  /** First interval; also the interval right after the user came back. */
  initialMs: number;
  /** The interval grows by half each idle poll up to this bound. */
  maxMs: number;
}

/** What `awaitSessionOutcome` learned. */
export interface PolledOutcome {
  state: NormalisedSessionState;
  polls: number;
}

interface PollProgress {
  polls: number;
  intervalMs: number;
}

/**
 * How often the poll heartbeats, whatever it is doing (sleeping, or waiting on a slow GetSession
 * whose own timeouts give a typed TimeoutError): the heartbeat timeout only detects a dead worker,
 * and a cancellation reaches the activity with the next heartbeat's answer.
 */
export const POLL_HEARTBEAT_EVERY_MS = 2_000;

/** How long a poll waits for a turn under the call budget before it gives the turn up. */
export const POLL_BUDGET_WAIT_MS = 2_000;

/** Polling: each GetSession is one attempt of `pollSession`, the next attempt the next poll. */
export function pollingActivities(deps: ActivityDeps) {
  const budget = deps.identity.budget;
  /** Ends this attempt; Temporal runs the next one (the next poll) after the delay, no slot held meanwhile. */
  const pollAgain = (sessionId: string, ownMs: number, reason: string): never => {
    throw ApplicationFailure.create({
      type: SESSION_RUNNING,
      message: reason,
      nextRetryDelay: budget ? budget.pollDelayMs(sessionId, ownMs) : ownMs,
      category: ApplicationFailureCategory.BENIGN,
    });
  };
  return {
    /**
     * One poll of a running session, as one attempt of a long-retried activity: it resolves when
     * the session is done; otherwise it fails `SessionRunning` with the next poll's delay as
     * `nextRetryDelay` (the session's own growing interval, stretched by the worker's call budget
     * when the budget is shared by many sessions). Between polls nothing runs or is held on the
     * worker, and no history event is written; the first attempt only arms the first interval.
     * The workflow cancels it to check at once (a redirect); a cancel while waiting between
     * attempts takes effect at the server without the worker.
     */
    async pollSession(plan: PollingPlan): Promise<PolledOutcome> {
      const context = Context.current();
      const polls = context.info.attempt - 1;
      if (polls === 0) return pollAgain(plan.sessionId, plan.initialMs, 'first poll after one interval');
      const state = await classified(async () => {
        try {
          return stateOf(
            await deps.identity.sessions.get(plan.sessionId, {
              signal: context.cancellationSignal,
              priority: 'poll',
              budgetWaitMs: POLL_BUDGET_WAIT_MS,
            }),
          );
        } catch (error) {
          // Not polled (no turn, or the service's 429): the next poll comes after the session's
          // fair delay or the service's Retry-After, whichever is later.
          if (error instanceof OverBudgetError || error instanceof RateLimitedError)
            return { notPolled: error.retryAfterMs ?? 0 };
          throw error;
        }
      });
      if ('notPolled' in state)
        return pollAgain(
          plan.sessionId,
          Math.max(pollIntervalMs(plan, polls - 1), Math.min(state.notPolled, MAX_RETRY_AFTER_MS)),
          'not polled: over budget or refused',
        );
      if (state.done) {
        budget?.forget(plan.sessionId);
        return { state, polls };
      }
      return pollAgain(plan.sessionId, pollIntervalMs(plan, polls), 'session running');
    },

    /**
     * Before `pollSession` (runs started then still schedule it): polls GetSession until the
     * session is done, with an interval that grows while the user is
     * idle (bounded by `maxMs`), starting one interval after the call. Heartbeats carry the progress across retries; cancellation (the
     * workflow restarting it after a redirect, or its deadline) interrupts the wait at once.
     */
    async awaitSessionOutcome(plan: PollingPlan): Promise<PolledOutcome> {
      return await classified(async () => {
        const context = Context.current();
        const resumed = context.info.heartbeatDetails as PollProgress | undefined;
        const progress: PollProgress = {
          polls: resumed?.polls ?? 0,
          intervalMs: resumed?.intervalMs ?? plan.initialMs,
        };
        const ticker = setInterval(() => context.heartbeat(progress), POLL_HEARTBEAT_EVERY_MS);
        try {
          // A fresh start follows a create or a check that just saw the session running: the first
          // look is one interval later. A retried attempt looks at once (time may have passed).
          if (!resumed) await context.sleep(progress.intervalMs);
          for (;;) {
            const state = stateOf(
              await deps.identity.sessions.get(plan.sessionId, {
                signal: context.cancellationSignal,
                priority: 'poll',
              }),
            );
            progress.polls += 1;
            if (state.done) return { state, polls: progress.polls };
            context.heartbeat(progress);
            await context.sleep(progress.intervalMs);
            progress.intervalMs = Math.min(plan.maxMs, Math.round(progress.intervalMs * 1.5));
          }
        } finally {
          clearInterval(ticker);
        }
      });
    },
  };
}
