import { isCancellation, log } from '@temporalio/workflow';
import { type VerificationStatus } from '../domain/outcome';
import { sessionCalls } from './activity-proxies';
import { activityFailureType } from '../../common/failure-types';
import { sessionUnknown } from '../shared/failure-types';
import { type SessionState } from './session-state';

/**
 * Cancels the session at the service unless the service said it is done, and ends the
 * verification (the first ending stays): with the service's real state when it had finished
 * meanwhile (a last-moment success is kept), otherwise with `status` (and `errorCode`, also
 * when the cancel ended the session: a cancel of the workflow's own). When the cancel fails the
 * verification ends all the same, its session not known to be done: the clean-up hands it to a
 * redaction that ends it, bounded and visibly.
 */
export async function endAtService(
  state: SessionState,
  status: Extract<VerificationStatus, 'cancelled' | 'timed-out' | 'failed'>,
  errorCode?: string,
): Promise<void> {
  const sessionId = state.sessionId;
  const ending = { status, ...(errorCode === undefined ? {} : { errorCode }) };
  if (sessionId && state.takeCancelTurn()) {
    state.count('CancelSession');
    try {
      const answer = await sessionCalls.cancelSession(sessionId);
      // Ended by this cancel: the ending is ours (a session cancelled meanwhile by someone else
      // keeps its own, but for a deadline's cancel, as ever).
      const ours = status === 'timed-out' || (errorCode !== undefined && answer.endedByCall === true);
      state.finish(answer, Date.now(), ours ? ending : undefined);
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (sessionUnknown(error)) state.sessionUnknown(Date.now());
      else
        log.warn('cancelling the session at the service failed; its redaction goes on trying', {
          failureType: activityFailureType(error),
        });
    }
  }
  state.end(ending, Date.now());
}
