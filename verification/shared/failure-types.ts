import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { activityFailureType } from '../../common/failure-types';
import { verificationErrorCodes } from '../domain/outcome';

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
  /**
   * An update (a refresh, a native challenge's answer) reached a verification while it moves to
   * its next run (its history is full): sent again in a moment, it reaches the next run.
   */
  movingOn: 'VerificationMovingOn',
} as const;

/** True when the service no longer knows the session (404). */
export function sessionUnknown(error: unknown): boolean {
  return activityFailureType(error) === 'NotFoundError';
}

/** Answers that cannot be read (the same would come again): a 200 of the wrong shape, one too large. */
const UNREADABLE = new Set(['MalformedResponseError', 'ResponseTooLargeError']);

/** The outcome's error code for a call the service refused for good, or answered unreadably. */
export function refusalCode(error: unknown): string {
  const type = activityFailureType(error);
  return type !== undefined && UNREADABLE.has(type)
    ? verificationErrorCodes.unreadableAnswer
    : verificationErrorCodes.serviceRefused;
}

/** What the `nextStep` update answers when the session could not be created (the reason in its message). */
export function sessionNotCreated(error: unknown): ApplicationFailure {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  return ApplicationFailure.create({
    type: verificationFailureTypes.notCreated,
    message: `the session could not be created: ${cause instanceof Error ? cause.message : String(cause)}`,
    nonRetryable: true,
    cause: error instanceof Error ? error : undefined,
  });
}
