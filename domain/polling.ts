/**
 * The failure type of a poll attempt that found the session still running: its retry is the next
 * poll. Seen by the workflow only when the retries ran out of their bound before the session ended.
 */
export const SESSION_RUNNING = 'SessionRunning';

/** The interval after `polls` idle polls: `initialMs`, growing by half each poll up to `maxMs`. */
export function pollIntervalMs(plan: { initialMs: number; maxMs: number }, polls: number): number {
  return Math.min(plan.maxMs, Math.round(plan.initialMs * 1.5 ** Math.max(0, polls)));
}
