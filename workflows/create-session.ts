import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { CreatedSession } from '../activities/session-activities';
import { type VerificationInput } from '../domain/verification';
import { creation } from './activity-proxies';
import { verificationFailureTypes } from './failure-types';
import { IdvSessionId, IdvStatus } from './search-attributes';
import { type SessionState } from './session-state';

function notCreated(error: unknown): ApplicationFailure {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  return ApplicationFailure.create({
    type: verificationFailureTypes.notCreated,
    message: `the session could not be created: ${cause instanceof Error ? cause.message : String(cause)}`,
    nonRetryable: true,
    cause: error instanceof Error ? error : undefined,
  });
}

/**
 * Creates the session. Creation is retried while the service fails, but never past the deadline
 * nor a caller's cancel: then the attempt is cancelled and the verification ends (`timed-out` or
 * `cancelled`) without a session. Until a clean answer says otherwise, an attempt may have left
 * an orphan, so the sweep stays `maybe`. Throws `SessionNotCreated` when the service refused.
 */
export async function createSession(input: VerificationInput, state: SessionState): Promise<void> {
  state.sweep = 'maybe';
  let created: CreatedSession | undefined;
  let failure: unknown;
  const scope = new CancellationScope();
  const attempt = scope
    .run(() => creation.createSession(input))
    .then(
      (answer) => void (created = answer),
      (error: unknown) => void (failure = error),
    );
  const answered = () => created !== undefined || failure !== undefined;
  const remainingMs = state.deadlineMs - Date.now();
  if (remainingMs > 0) await condition(() => answered() || state.cancelRequested !== undefined, remainingMs);
  if (!answered()) scope.cancel();
  await attempt;
  if (created) {
    state.count('CreateDirectProviderSession');
    state.created(created.sessionId, created.collectionMethod, created.nextStep, Date.now());
    state.sweep = created.orphansPossible ? 'maybe' : 'none';
    upsertSearchAttributes([
      { key: IdvSessionId, value: created.sessionId },
      { key: IdvStatus, value: 'pending' },
    ]);
    return;
  }
  if (failure !== undefined && !isCancellation(failure)) {
    state.createFailure = notCreated(failure);
    throw state.createFailure;
  }
  state.end({ status: state.cancelRequested !== undefined ? 'cancelled' : 'timed-out' }, Date.now());
}
