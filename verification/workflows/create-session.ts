import { CancellationScope, condition, isCancellation, upsertSearchAttributes } from '@temporalio/workflow';
import type { CreatedSession } from '../activities/session-activities';
import type { VerificationInput } from '../domain/verification';
import { creation } from './activity-proxies';
import { refusalCode, sessionNotCreated } from '../shared/failure-types';
import { IdvSessionId, IdvStatus } from '../../common/search-attributes';
import { type SessionState } from './session-state';

/**
 * Creates the session. Creation is retried while the service fails, but never past the deadline
 * nor a caller's cancel: then the attempt is cancelled, waited for until it has stopped, and the
 * verification ends (`timed-out` or `cancelled`) without a session. A refusal for good ends it
 * `failed` (`ServiceRefused` or `UnreadableAnswer`), and the `nextStep` callers learn why.
 * Resolves to whether an orphan may exist (see `CreatedSession.orphansPossible`).
 */
export async function createSession(input: VerificationInput, state: SessionState): Promise<boolean> {
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
  if (remainingMs > 0)
    await condition(() => answered() || state.cancelRequested !== undefined, remainingMs, {
      summary: 'until the session is created, or the deadline',
    });
  const cutShort = !answered();
  if (cutShort) scope.cancel();
  await attempt;
  // An answer that came while the cancel was on its way is not kept: the clean-up closes the
  // verification's creation, which marks that session an orphan for the sweep.
  if (created && !cutShort) {
    state.count('CreateDirectProviderSession');
    state.created(created.sessionId, created.collectionMethod, created.nextStep, Date.now());
    upsertSearchAttributes([
      { key: IdvSessionId, value: created.sessionId },
      { key: IdvStatus, value: 'pending' },
    ]);
    return created.orphansPossible;
  }
  if (failure !== undefined && !isCancellation(failure) && !cutShort) {
    state.creationFailed(sessionNotCreated(failure));
    state.end({ status: 'failed', errorCode: refusalCode(failure) }, Date.now());
    return false;
  }
  state.end({ status: state.cancelRequested !== undefined ? 'cancelled' : 'timed-out' }, Date.now());
  return false;
}
