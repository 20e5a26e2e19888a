import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { type PollPlacement } from '../../api/http/call-budget';
import { OverBudgetError, RateLimitedError } from '../../api/http/errors';
import { pollIntervalMs, ruleIntervalAtAgeMs, SESSION_RUNNING } from '../domain/polling';
import { type NormalisedSessionState } from '../domain/session-status';
import { type VerificationDeps } from './deps';
import { classified, MAX_RETRY_AFTER_MS } from './failures';
import { type FetchedResults, type ResultsAlong, resultsAlong } from './result-activities';
import { stateOf } from './wire-views';

/** How `pollSession` polls. */
export interface PollingPlan {
  sessionId: string;
  /** First interval; also the interval right after the user came back. */
  initialMs: number;
  /** The interval grows by half each idle poll up to this bound. */
  maxMs: number;
  /** The session's provider: its learned completion times place the polls (absent: the fixed rule). */
  provider?: string;
  /** When the verification started (ms since the epoch): a session's age is counted from it. */
  startedAtMs?: number;
  /** The user came back and the session was still running: polls follow the fixed rule, from its first interval. */
  afterReturn?: boolean;
  /** The results to fetch along when a poll finds the session succeeded. */
  resultsAlong?: ResultsAlong;
}

/** What `pollSession` learned. */
export interface PolledOutcome {
  state: NormalisedSessionState;
  polls: number;
  /** The results fetched along (see `ResultsAlong`), when that worked out. */
  results?: FetchedResults;
}

/** How long a poll waits for a turn under the call budget before it gives the turn up. */
export const POLL_BUDGET_WAIT_MS = 2_000;

/** Polling: each GetSession is one attempt of `pollSession`, the next attempt the next poll. */
export function pollingActivities(deps: VerificationDeps) {
  const { pollLearning: learning, identity } = deps;
  const budget = identity.budget;
  const fetchAlong = resultsAlong(deps);
  /**
   * The session's provider and age, when its polls learn and are placed by what was learned: not
   * after the user came back (a completion is near then, whatever the provider's times).
   */
  const learned = (plan: PollingPlan) => {
    const { provider, startedAtMs } = plan;
    if (!learning || provider === undefined || startedAtMs === undefined || plan.afterReturn)
      return undefined;
    return { learning, provider, ageMs: Math.max(0, Date.now() - startedAtMs) };
  };
  /** Ends this attempt; Temporal runs the next one (the next poll) after `delayMs`, no slot held meanwhile. */
  const pollAgainAfter = (delayMs: number, reason: string): never => {
    throw ApplicationFailure.create({
      type: SESSION_RUNNING,
      message: reason,
      nextRetryDelay: delayMs,
      category: ApplicationFailureCategory.BENIGN,
    });
  };
  /** The delay before the next poll: the session's own interval, placed and stretched by the budget. */
  const nextPollMs = (plan: PollingPlan, ownMs: number, session: ReturnType<typeof learned>): number => {
    if (!budget) return ownMs;
    const curve = session?.learning.curve(session.provider);
    const placement: PollPlacement | undefined =
      session && curve
        ? {
            curve,
            ageMs: session.ageMs,
            floorMs: plan.initialMs,
            ruleMs: (ageMs: number) => ruleIntervalAtAgeMs(plan, ageMs),
          }
        : undefined;
    return budget.pollDelayMs(plan.sessionId, ownMs, placement);
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
      // The attempts of this poll activity: its poll numbers start again with another (a
      // redirect restarts the poll, a new run starts its own).
      const series = `${context.info.workflowExecution?.runId ?? ''}/${context.info.activityId}`;
      const session = learned(plan);
      if (polls === 0) {
        session?.learning.running(series, session.provider, session.ageMs, polls);
        return pollAgainAfter(nextPollMs(plan, plan.initialMs, session), 'first poll after one interval');
      }
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
          // Not polled: no turn under this process's part of the budget, or the service's 429.
          if (error instanceof OverBudgetError || error instanceof RateLimitedError)
            return { notPolled: error.retryAfterMs ?? 0, turnLost: error instanceof OverBudgetError };
          throw error;
        }
      }).catch((error: unknown) => ({ failed: error }));
      // An attempt that learnt nothing of the session (no turn, a 429, a 5xx, a timeout) passes
      // the learning's chain on to the next one.
      if ('failed' in state || 'notPolled' in state) session?.learning.notPolled(series, polls);
      if ('failed' in state) throw state.failed;
      if ('notPolled' in state) {
        const retryAfterMs = Math.min(state.notPolled, MAX_RETRY_AFTER_MS);
        // A lost turn: the poll was due, only the budget's part was full; it comes back at a turn
        // of its own (see turnLostDelayMs). A 429: the session's own interval, stretched by the
        // budget, or the Retry-After, whichever is later.
        const delayMs =
          budget && state.turnLost
            ? budget.turnLostDelayMs(plan.sessionId, retryAfterMs)
            : nextPollMs(plan, Math.max(pollIntervalMs(plan, polls - 1), retryAfterMs), undefined);
        return pollAgainAfter(delayMs, 'not polled: over budget or refused');
      }
      if (state.done) {
        // A session cancelled was ended by its business (the verification's deadline or caller,
        // whose cancel may come while an attempt runs): not a completion of the user's.
        if (state.status === 'cancelled') session?.learning.notPolled(series, polls);
        else session?.learning.completed(series, session.provider, session.ageMs, polls);
        budget?.forget(plan.sessionId);
        const results = await fetchAlong(plan.sessionId, plan.resultsAlong, state, {
          signal: context.cancellationSignal,
          priority: 'first',
        });
        return { state, polls, ...(results ? { results } : {}) };
      }
      session?.learning.running(series, session.provider, session.ageMs, polls);
      return pollAgainAfter(nextPollMs(plan, pollIntervalMs(plan, polls), session), 'session running');
    },
  };
}
