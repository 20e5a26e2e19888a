import { ActivityFailure, ApplicationFailure } from '@temporalio/common';

/** The failure type of a maintenance workflow (redaction, sweep, onboarding) whose step gave up (stable API). */
export const MAINTENANCE_GAVE_UP = 'MaintenanceGaveUp';

/** The type of the failure an activity failed with (its API error class), if it has one. */
export function activityFailureType(error: unknown): string | undefined {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure
    ? (error.cause.type ?? undefined)
    : undefined;
}

/** True when an activity failed for good: a non-retryable failure (not a timeout of its budget). */
export function failedForGood(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.nonRetryable === true
  );
}
