import { setTimeout as delay } from 'node:timers/promises';
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
 * How long after a GetSession answered 404 it is asked again before the session is taken for
 * gone: two answers moments apart may come from the same replica behind (the read path's look
 * again is as long).
 */
export const GONE_AGAIN_AFTER_MS = 5_000;

/**
 * The session as GetSession answers it after a call that ends or redacts it answered 404, or
 * undefined when GetSession says 404 too, and again {@link GONE_AGAIN_AFTER_MS} later. The
 * interface defines no 404: answers close together (a gateway's, a replica's behind) do not
 * prove the session gone, and a session taken for gone is never ended nor redacted again.
 */
export async function stillServed(
  sessions: SessionsApi,
  sessionId: string,
  options: CallOptions = {},
): Promise<Session | undefined> {
  const read = async () => {
    try {
      return await sessions.get(sessionId, options);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  };
  const served = await read();
  if (served) return served;
  await delay(GONE_AGAIN_AFTER_MS, undefined, { signal: options.signal });
  return await read();
}

/**
 * A CancelSession answered 200 with its session still running: the service took the cancel but
 * has not carried it out (yet), so the session is not ended. Retried as a failed call would be.
 */
export class CancelNotAppliedError extends Error {
  override readonly name = 'CancelNotAppliedError';
}

/**
 * A RedactSession answered 404 for a session GetSession still serves: not proven redacted nor
 * gone, so retried as a failed call would be.
 */
export class RedactionNotAppliedError extends Error {
  override readonly name = 'RedactionNotAppliedError';
}

/**
 * CancelSession, unless the session has finished: the one rule for "cancelling a finished session
 * is fine". Resolves only with a session that is done; one the answer says still runs throws
 * {@link CancelNotAppliedError}, and so does one answered 404 that GetSession still serves
 * running ({@link stillServed}); a 404 from both throws the cancel's `NotFoundError`.
 */
export async function cancelUnlessDone(
  sessions: SessionsApi,
  sessionId: string,
  options: CallOptions = {},
): Promise<EndingCallState> {
  const state = await unlessDone(
    sessions,
    sessionId,
    () => sessions.cancel(sessionId, options),
    options,
  ).catch(async (error: unknown) => {
    if (!(error instanceof NotFoundError)) throw error;
    const served = await stillServed(sessions, sessionId, options);
    if (!served) throw error;
    return stateOf(served);
  });
  if (!state.done)
    throw new CancelNotAppliedError(
      'CancelSession answered with the session still running: the cancel is not carried out yet',
    );
  return state;
}
