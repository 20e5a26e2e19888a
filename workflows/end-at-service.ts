import { isCancellation, log } from '@temporalio/workflow';
import { type VerificationStatus } from '../domain/verification';
import { sessionCalls } from './activity-proxies';
import { activityFailureType, sessionUnknown } from './failure-types';
import { type SessionState } from './session-state';

/**
 * Cancels the session at the service and ends the verification: with the service's real state
 * when it had finished meanwhile (a last-moment success is kept), otherwise with `status`. When
 * the cancel fails for good the verification ends all the same, marked `cancelFailed`: clean-up
 * starts the redaction child even with `redactAfter: 'never'`, and that child ends live sessions.
 */
export async function endAtService(
  state: SessionState,
  status: Extract<VerificationStatus, 'cancelled' | 'timed-out' | 'failed'>,
): Promise<void> {
  const sessionId = state.sessionId;
  if (sessionId && !state.done) {
    state.count('CancelSession');
    try {
      state.finish(await sessionCalls.cancelSession(sessionId), Date.now(), status === 'timed-out');
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (sessionUnknown(error)) state.end({ status: 'failed', errorCode: 'SessionNotFound' }, Date.now());
      else {
        log.warn('cancelling the session at the service failed; a child goes on trying', {
          failureType: activityFailureType(error),
        });
        state.cancelFailed = true;
      }
    }
  }
  state.end({ status }, Date.now());
}
