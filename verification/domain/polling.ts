/**
 * The failure type of a poll attempt that found the session still running: its retry is the next
 * poll. Seen by the workflow only when the retries ran out of their bound before the session ended.
 */
export const SESSION_RUNNING = 'SessionRunning';

/**
 * Temporal task queue priority of the polls (1 goes first; unset is 3): when activities back up
 * in the task queue, due poll attempts wait behind every other call of a verification (a
 * redirect check, a results fetch, a create, a cancel), as they do in the call budget.
 */
export const POLL_PRIORITY_KEY = 4;

/**
 * The polling bounds a request leaves out (see the request's `polling`): the interval from 1 s
 * growing to 10 s, and how long a worker holds one poll attempt between its polls.
 */
export const DEFAULT_POLLING = { initialMs: 1_000, maxMs: 10_000, attemptMs: 600_000 } as const;

/** The interval after `polls` idle polls: `initialMs`, growing by half each poll up to `maxMs`. */
export function pollIntervalMs(plan: { initialMs: number; maxMs: number }, polls: number): number {
  return Math.min(plan.maxMs, Math.round(plan.initialMs * 1.5 ** Math.max(0, polls)));
}

/**
 * The interval the fixed rule has reached `ageMs` after polling started: as many polls as fit in
 * that time, each interval half as long again as the one before (`initialMs` first), then
 * {@link pollIntervalMs} after them.
 */
export function ruleIntervalAtAgeMs(plan: { initialMs: number; maxMs: number }, ageMs: number): number {
  // The first n intervals add up to 2 · initialMs · (1.5^n − 1) while below the bound.
  const polls = Math.floor(Math.log(Math.max(0, ageMs) / (2 * plan.initialMs) + 1) / Math.log(1.5));
  return pollIntervalMs(plan, Number.isFinite(polls) ? polls : 0);
}
