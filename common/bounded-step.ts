import {
  type ActivityInterfaceFor,
  type ActivityOptions,
  isCancellation,
  log,
  proxyActivities,
  sleep,
} from '@temporalio/workflow';
import { activityFailureType } from './failure-types';

/** How a bounded step ended: its value, or why it gave up. */
export type StepOutcome<T> = { value: T } | { gaveUp: string };

/** The bound of a step: how long it keeps trying, and how long it waits after a refusal. */
export interface StepBound {
  /** What the step does, for logs. */
  what: string;
  boundMs: number;
  /** After a refusal for good (an API key rotated meanwhile may lift it), the next round comes this much later. */
  gapMs: number;
  /** The longest wait between two retries of what is transient (Temporal's own retries). */
  maxRetryIntervalMs: number;
}

/**
 * Runs a step until it succeeds or its bound has passed. Each round is one activity whose
 * transient failures Temporal retries until the bound (no history event per retry); a refusal
 * for good ends the round, and the next comes `gapMs` later. Never waits past the bound; a
 * cancellation passes through.
 */
export async function boundedStep<A, T>(
  bound: StepBound,
  call: (activities: ActivityInterfaceFor<A>) => Promise<T>,
): Promise<StepOutcome<T>> {
  const giveUpAtMs = Date.now() + bound.boundMs;
  for (let round = 1; ; round += 1) {
    const options: ActivityOptions = {
      startToCloseTimeout: '1 minute',
      scheduleToCloseTimeout: Math.max(1_000, giveUpAtMs - Date.now()),
      retry: {
        initialInterval: '1 second',
        backoffCoefficient: 2,
        maximumInterval: bound.maxRetryIntervalMs,
      },
    };
    try {
      return { value: await call(proxyActivities<A>(options)) };
    } catch (error) {
      if (isCancellation(error)) throw error;
      const reason = describeFailure(error);
      if (Date.now() + bound.gapMs > giveUpAtMs) return { gaveUp: `${reason} (${round} rounds)` };
      log.warn(`${bound.what} was refused; trying again later`, {
        failureType: activityFailureType(error),
        round,
      });
      await sleep(bound.gapMs);
    }
  }
}

/** {@link boundedStep} over the activities of one feature: `const step = boundedSteps<Its>()`. */
export function boundedSteps<A>() {
  return <T>(bound: StepBound, call: (activities: ActivityInterfaceFor<A>) => Promise<T>) =>
    boundedStep<A, T>(bound, call);
}

/** A failure in a few words: the activity's failure type and message, never a payload. */
export function describeFailure(error: unknown): string {
  const type = activityFailureType(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const message = cause instanceof Error ? cause.message : String(cause);
  return type ? `${type}: ${message}` : message;
}

/** Two independent steps, each awaited to its end whatever the other does; then the first failure, if any. */
export async function bothSettled<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [first, second] = await Promise.allSettled([a, b]);
  if (first.status === 'rejected') throw first.reason;
  if (second.status === 'rejected') throw second.reason;
  return [first.value, second.value];
}
