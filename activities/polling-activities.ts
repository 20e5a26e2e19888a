import { Context } from '@temporalio/activity';
import { type NormalisedSessionState } from '../domain/session-status';
import { type ActivityDeps } from './deps';
import { classified } from './failures';
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

/** The long-running poll: many GetSession calls, one activity, no history event per poll. */
export function pollingActivities(deps: ActivityDeps) {
  return {
    /**
     * Polls GetSession until the session is done, with an interval that grows while the user is
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
              await deps.identity.sessions.get(plan.sessionId, { signal: context.cancellationSignal }),
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
