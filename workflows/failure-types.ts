import { ActivityFailure, ApplicationFailure } from '@temporalio/common';

/**
 * Failure types the verification workflows raise, stable API: clients (ours in client/, and
 * those in other languages) tell failures apart by these, never by message text.
 */
export const verificationFailureTypes = {
  /** An update reached a verification that has already ended. */
  ended: 'VerificationEnded',
  /** The session could not be created (the service refused, or the verification ended first). */
  notCreated: 'SessionNotCreated',
  /** The workflow's input breaks a bound (it bypassed the client's validation). */
  invalidInput: 'InvalidVerificationInput',
  /** An update's argument is invalid. */
  invalidArgument: 'InvalidUpdateArgument',
  /** A defect in the workflow code: the verification failed after its clean-up ran. */
  defect: 'VerificationDefect',
} as const;

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

/** True when the service no longer knows the session (404). */
export function sessionUnknown(error: unknown): boolean {
  return activityFailureType(error) === 'NotFoundError';
}
