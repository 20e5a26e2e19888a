import { type CreateAttempt, type CreateWindow } from '../stores/session-vault';

// The service stamps sessions in whole seconds, and its clock is not ours.
const CLOCK_SLACK_MS = 2_000;

/**
 * The windows in which unsettled create attempts may have created a session: from each one's
 * start to its end (or the next attempt's start, or `nowMs` when the worker died during it).
 */
export function unsettledWindows(attempts: CreateAttempt[], nowMs: number): CreateWindow[] {
  return attempts.flatMap((attempt, index) =>
    attempt.settled
      ? []
      : [
          {
            fromMs: attempt.startedAtMs - CLOCK_SLACK_MS,
            toMs: (attempt.endedAtMs ?? attempts[index + 1]?.startedAtMs ?? nowMs) + CLOCK_SLACK_MS,
          },
        ],
  );
}
