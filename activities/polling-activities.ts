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
        let polls = resumed?.polls ?? 0;
        let intervalMs = resumed?.intervalMs ?? plan.initialMs;
        // A fresh start follows a create or a check that just saw the session running: the first
        // look is one interval later. A retried attempt looks at once (time may have passed).
        if (!resumed) await context.sleep(intervalMs);
        for (;;) {
          const state = stateOf(
            await deps.identity.sessions.get(plan.sessionId, { signal: context.cancellationSignal }),
          );
          polls += 1;
          if (state.done) return { state, polls };
          context.heartbeat({ polls, intervalMs } satisfies PollProgress);
          await context.sleep(intervalMs);
          intervalMs = Math.min(plan.maxMs, Math.round(intervalMs * 1.5));
        }
      });
    },
  };
}
