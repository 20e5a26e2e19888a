import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { OverBudgetError, RateLimitedError } from '../../api/http/errors';
import { pollIntervalMs, SESSION_RUNNING } from '../domain/polling';
import { type NormalisedSessionState } from '../domain/session-status';
import { type VerificationDeps } from './deps';
import { classified, MAX_RETRY_AFTER_MS } from './failures';
import { stateOf } from './wire-views';

/** How `pollSession` polls. */
export interface PollingPlan {
  sessionId: string;
  /** First interval; also the interval right after the user came back. */
  initialMs: number;
  /** The interval grows by half each idle poll up to this bound. */
  maxMs: number;
}

/** What `pollSession` learned. */
export interface PolledOutcome {
  state: NormalisedSessionState;
  polls: number;
}

/** How long a poll waits for a turn under the call budget before it gives the turn up. */
export const POLL_BUDGET_WAIT_MS = 2_000;

/** Polling: each GetSession is one attempt of `pollSession`, the next attempt the next poll. */
export function pollingActivities(deps: VerificationDeps) {
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
  };
}
