import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory, CompleteAsyncError } from '@temporalio/common';
import { type PollPlacement } from '../../api/http/call-budget';
import { OverBudgetError, RateLimitedError } from '../../api/http/errors';
import { pollIntervalMs, ruleIntervalAtAgeMs, SESSION_RUNNING } from '../domain/polling';
import { type NormalisedSessionState } from '../domain/session-status';
import { type VerificationDeps } from './deps';
import { classified, MAX_RETRY_AFTER_MS } from './failures';
import { isHeldPollDetails } from './attempt-server';
import { type PollStep } from './held-polls';
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

/**
 * The most one poll may take: its turn under the budget, the GetSession's answer and the results
 * fetched along, each bounded by the client's answer timeout. A held attempt starts no poll
 * later than this before its own bound.
 */
const ONE_POLL_BOUND_MS = 90_000;

/** Ends a poll attempt: Temporal runs the next one (the next poll) after `delayMs`, no slot held meanwhile. */
function pollAgain(delayMs: number, reason: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: SESSION_RUNNING,
    message: reason,
    nextRetryDelay: delayMs,
    category: ApplicationFailureCategory.BENIGN,
  });
}

/** Polling: `pollSession`, whose attempts a worker holds between their polls (see `HeldPolls`). */
export function pollingActivities(deps: VerificationDeps) {
  const { pollLearning: learning, heldPolls: held, identity } = deps;
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
  /**
   * One poll of `plan`'s session (number `polls` of its `series`; 0 arms the first interval and
   * makes no call), cancelled by `signal`: the session found done, or the next poll's delay.
   */
  const pollOnce = async ({ plan, series, polls, signal }: OnePoll): Promise<Polled> => {
    const session = learned(plan);
    if (polls === 0) {
      session?.learning.running(series, session.provider, session.ageMs, polls);
      return { againMs: nextPollMs(plan, plan.initialMs, session), reason: 'first poll after one interval' };
    }
    const state = await classified(
      async () => {
        try {
          return stateOf(
            await deps.identity.sessions.get(plan.sessionId, {
              signal,
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
      },
      () => signal,
    ).catch((error: unknown) => ({ failed: error }));
    // An attempt that learnt nothing of the session (no turn, a 429, a 5xx, a timeout) passes
    // the learning's chain on to the next one.
    if ('failed' in state || 'notPolled' in state) session?.learning.notPolled(series, polls);
    if ('failed' in state) throw state.failed;
    if ('notPolled' in state) {
      const retryAfterMs = Math.min(state.notPolled, MAX_RETRY_AFTER_MS);
      // A lost turn: the poll was due, only the budget's part was full; it comes back at a turn
      // of its own (see turnLostDelayMs), through the server when other workers share the
      // budget (their parts may have turns). A 429: the session's own interval, stretched by the
      // budget, or the Retry-After, whichever is later.
      if (budget && state.turnLost)
        return {
          againMs: budget.turnLostDelayMs(plan.sessionId, retryAfterMs),
          reason: 'not polled: over budget',
          ...(budget.shared ? { handBack: true as const } : {}),
        };
      const ownMs = Math.max(pollIntervalMs(plan, polls - 1), retryAfterMs);
      return { againMs: nextPollMs(plan, ownMs, undefined), reason: 'not polled: refused' };
    }
    if (state.done) {
      // A session cancelled was ended by its business (the verification's deadline or caller,
      // whose cancel may come while an attempt runs): not a completion of the user's.
      if (state.status === 'cancelled') session?.learning.notPolled(series, polls);
      else session?.learning.completed(series, session.provider, session.ageMs, polls);
      budget?.forget(plan.sessionId);
      return { done: state };
    }
    session?.learning.running(series, session.provider, session.ageMs, polls);
    return { againMs: nextPollMs(plan, pollIntervalMs(plan, polls), session), reason: 'session running' };
  };
  /** The outcome of a poll that found the session done, with the results fetched along. */
  const outcomeOf = async (
    { plan, polls, signal }: OnePoll,
    { state, attemptEndsAtMs }: { state: NormalisedSessionState; attemptEndsAtMs: number },
  ): Promise<PolledOutcome> => {
    const results = await fetchAlong(plan.sessionId, plan.resultsAlong, state, {
      signal,
      priority: 'first',
      attemptEndsAtMs,
    });
    return { state, polls, ...(results ? { results } : {}) };
  };
  return {
    /**
     * Polls a running session until it is done: it resolves with the outcome; the workflow sees
     * it fail only when the polls ran out of their bound (`SessionRunning`) or a call failed for
     * good. Each poll is one GetSession at the session's own growing interval, placed and
     * stretched by the worker's call budget. An attempt is held by the worker between its polls
     * (see `HeldPolls`) for as long as its start-to-close timeout allows, then handed back with
     * the next poll's delay as its retry delay; an attempt whose bound holds no wait (or when
     * the worker holds as many as it may) makes one poll and ends, the next attempt being the
     * next poll. The first poll only arms the first interval. The workflow cancels it to check
     * at once (a redirect); a held attempt learns it before it acts on an outcome.
     */
    async pollSession(plan: PollingPlan): Promise<PolledOutcome> {
      const context = Context.current();
      const { info } = context;
      // The poll's number goes on from what the attempts before left (a held attempt makes many
      // polls); otherwise each attempt before was one poll.
      const left = isHeldPollDetails(info.heartbeatDetails) ? info.heartbeatDetails : undefined;
      // (An attempt reset, or unpaused, starts its count again: the number carried is then passed.)
      const polls =
        left && info.attempt > left.attempt ? left.polls + info.attempt - left.attempt : info.attempt - 1;
      // The polls of one activity (a redirect restarts the poll, a new run starts its own) pair
      // up for the learning; a held attempt's among themselves, since the poll count it was left
      // may be behind (its predecessor's worker crashed) and must not pair with an older poll.
      const activity = `${info.workflowExecution?.runId ?? ''}/${info.activityId}`;
      const startedAtMs = Date.now();
      const endsAtMs = Math.min(
        startedAtMs + info.startToCloseTimeoutMs,
        info.scheduleToCloseTimeoutMs > 0
          ? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs
          : Number.POSITIVE_INFINITY,
      );
      const holdUntilMs = endsAtMs - ONE_POLL_BOUND_MS;
      if (held?.accepting && holdUntilMs > startedAtMs) {
        const series = `${activity}#${info.attempt}`;
        held.hold({
          // A copy: the token is a view of the whole task's bytes, which it would keep alive.
          taskToken: Uint8Array.from(info.taskToken),
          key: plan.sessionId,
          attempt: info.attempt,
          poll: polls,
          holdUntilMs,
          endsAtMs,
          run: async (poll, { signal, stillWanted }): Promise<PollStep<PolledOutcome>> => {
            const one = { plan, series, polls: poll, signal };
            const step = await pollOnce(one);
            if (!('done' in step)) return step;
            // Cancelled since it was handed over: no results for a workflow that no longer waits.
            if (!(await stillWanted())) return { unwanted: true };
            return { outcome: await outcomeOf(one, { state: step.done, attemptEndsAtMs: endsAtMs }) };
          },
          handBack: pollAgain,
          // The budget's turns freed since the next poll was planned (a burst of creates ended):
          // it comes sooner rather than leave them unused.
          ...(budget ? { sooner: (leftMs: number) => budget.pollSooner(plan.sessionId, leftMs) } : {}),
        });
        throw new CompleteAsyncError();
      }
      const one = { plan, series: activity, polls, signal: context.cancellationSignal };
      const step = await pollOnce(one);
      const attemptEndsAtMs = info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs;
      if ('done' in step) return await outcomeOf(one, { state: step.done, attemptEndsAtMs });
      throw pollAgain(step.againMs, step.reason);
    },
  };
}

/** One poll: whose, its number in its series (see `PollLearning`), and what cancels it. */
interface OnePoll {
  plan: PollingPlan;
  series: string;
  polls: number;
  signal: AbortSignal;
}

/** What one poll found: the session done, or the next poll's delay (`handBack`: through the server). */
type Polled = { done: NormalisedSessionState } | { againMs: number; reason: string; handBack?: true };
