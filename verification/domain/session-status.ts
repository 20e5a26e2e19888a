import { type SessionErrorCode, sessionErrorCodes } from '../../common/identity-enums';

/** Status of a session at the service, the same for both API generations. */
export type SessionStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled' | 'expired';

/** The fields of a session that carry its state, in either generation. */
export interface SessionStateFields {
  /** Current generation: terminal or not. */
  done?: boolean;
  success?: boolean;
  errorCode?: string | null;
  /** Older generation, e.g. `IdvSuccess`, `IdvFailed`. */
  state?: string;
  failCode?: string | null;
}

/** A session's state normalised to one vocabulary. */
export interface NormalisedSessionState {
  done: boolean;
  status: SessionStatus;
  /** Set whenever the session ended without success; unknown codes become `Other`. */
  errorCode?: SessionErrorCode;
}

const knownCodes = new Map<string, SessionErrorCode>(
  sessionErrorCodes.map((code) => [code.toLowerCase(), code]),
);

// Older fail codes (e.g. `FailCodeUserCanceled`, `SESSION_FAIL_EXPIRED`) in the current vocabulary.
const olderFailCodes: Record<string, SessionErrorCode> = {
  usercanceled: 'UserAbandoned',
  usercancelled: 'UserAbandoned',
  rpcanceled: 'Canceled',
  canceled: 'Canceled',
  cancelled: 'Canceled',
  expired: 'Expired',
  sessionexpired: 'Expired',
  internal: 'Internal',
  verificationfailed: 'Other',
  authentication: 'SecurityValidationFailed',
};

function errorCodeOf(raw: string | null | undefined): SessionErrorCode {
  if (!raw) return 'Other';
  const key = raw
    .toLowerCase()
    .replace(/^(failcode|session_fail_|sessionfail)/, '')
    .replace(/_/g, '');
  return knownCodes.get(key) ?? olderFailCodes[key] ?? 'Other';
}

function ended(errorCode: SessionErrorCode): NormalisedSessionState {
  const status: SessionStatus =
    errorCode === 'Canceled' ? 'cancelled' : errorCode === 'Expired' ? 'expired' : 'failed';
  return { done: true, status, errorCode };
}

/** Normalises `done/success/errorCode` (current) and `state/failCode` (older) to one status. */
export function normaliseSessionState(session: SessionStateFields): NormalisedSessionState {
  if (session.done !== undefined) {
    if (!session.done) return { done: false, status: 'pending' };
    return session.success ? { done: true, status: 'succeeded' } : ended(errorCodeOf(session.errorCode));
  }
  const state = (session.state ?? '').toLowerCase().replace(/^idv_?|_/g, '');
  if (state === 'success' || state === 'succeeded') return { done: true, status: 'succeeded' };
  if (state.includes('cancel')) return ended('Canceled');
  if (state.includes('expire')) return ended('Expired');
  if (state === 'failed' || state === 'failure') return ended(errorCodeOf(session.failCode));
  return { done: false, status: 'pending' };
}
