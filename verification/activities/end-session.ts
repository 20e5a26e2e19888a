import { ConflictError, NotFoundError, ValidationError } from '../../api/http/errors';
import { type CallOptions } from '../../api/http/http-core';
import { type Session } from '../../api/identity/schemas/session';
import { type SessionsApi } from '../../api/identity/sessions-api';
import { type NormalisedSessionState } from '../domain/session-status';
import { stateOf } from './wire-views';

/** A session's state after a call that ends it; `endedByCall` when that call (or, for a cancel, an earlier attempt of it) ended it. */
export type EndingCallState = NormalisedSessionState & { endedByCall?: true };

/**
 * A call that ends a session (CancelSession, SubmitNativeChallengeResponse), answered with the
 * session's state. A refusal that may mean the session has finished already (a 400, as the
 * service answers it, or a 409, which the interface does not rule out; an earlier attempt whose
 * answer was lost, say) is checked with GetSession: a session that is done answers its real
 * state (a last-moment success is kept); one still running rethrows the refusal. A check that
 * fails throws its own error, or with `refusalWhenUnchecked` the refusal (a caller's bad input is
 * then not retried as the check's 5xx would be). A session the service does not know throws its
 * `NotFoundError`.
 */
export async function unlessDone(
  sessions: SessionsApi,
  sessionId: string,
  call: () => Promise<Session>,
  options: CallOptions & { refusalWhenUnchecked?: boolean } = {},
): Promise<EndingCallState> {
  const { refusalWhenUnchecked, ...callOptions } = options;
  try {
    return { ...stateOf(await call()), endedByCall: true };
  } catch (error) {
    const mayBeFinished = (error instanceof ValidationError && error.sent) || error instanceof ConflictError;
    if (!mayBeFinished) throw error;
    const state = stateOf(
      await sessions.get(sessionId, callOptions).catch((checkError: unknown) => {
        const refusal =
          refusalWhenUnchecked && !(checkError instanceof NotFoundError) && !callOptions.signal?.aborted;
        throw refusal ? error : checkError;
      }),
    );
    if (state.done) return state;
    throw error;
  }
}

/**
 * A CancelSession answered 200 with its session still running: the service took the cancel but
 * has not carried it out (yet), so the session is not ended. Retried as a failed call would be.
 */
export class CancelNotAppliedError extends Error {
  override readonly name = 'CancelNotAppliedError';
}

/**
 * CancelSession, unless the session has finished: the one rule for "cancelling a finished session
 * is fine". Resolves only with a session that is done; one the answer says still runs throws
 * {@link CancelNotAppliedError}.
 */
export async function cancelUnlessDone(
  sessions: SessionsApi,
  sessionId: string,
  options: CallOptions = {},
): Promise<EndingCallState> {
  const state = await unlessDone(sessions, sessionId, () => sessions.cancel(sessionId, options), options);
  if (!state.done)
    throw new CancelNotAppliedError(
      'CancelSession answered with the session still running: the cancel is not carried out yet',
    );
  return state;
}
