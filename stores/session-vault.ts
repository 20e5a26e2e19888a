import { legacyDataKeyId } from '../domain/sealed';

/** Thrown when a session's results access key is gone (redacted) or was never stored here. */
export class SessionSecretMissingError extends Error {
  override readonly name = 'SessionSecretMissingError';
}

/** A create attempt: when it started, and whether an answer settled it. */
export interface CreateAttempt {
  startedAtMs: number;
  /** When the attempt ended (absent when the worker died during it). */
  endedAtMs?: number;
  /**
   * True when the service answered definitively (created, or refused with a 4xx): no session
   * of this attempt can exist unclaimed. False for lost answers, timeouts, 5xx and crashes.
   */
  settled: boolean;
  /** The session it created, once answered. */
  sessionId?: string;
}

/** How a create attempt ended. */
export interface CreateAttemptEnding {
  endedAtMs: number;
  settled: boolean;
  sessionId?: string;
}

/** What ties a created session to its verification. */
export interface SessionClaim {
  workflowId: string;
  resultsAccessKey: string;
  /** The verification's data key, so any redaction of the session can destroy it. */
  dataKeyId?: string;
}

/** A time window (epoch ms) in which an unsettled create attempt may have created a session. */
export interface CreateWindow {
  fromMs: number;
  toMs: number;
}

/**
 * Keeps what must not travel through Temporal payloads: each session's results access key, the
 * claim that ties a session to its workflow, and the create attempts of each workflow (to find
 * sessions orphaned by a lost answer). Every worker of a deployment must share it.
 */
export interface SessionVault {
  /** Records that a create attempt of `workflowId` starts now; resolves to its id (overlapping attempts get distinct ids). */
  recordCreateAttempt(workflowId: string, startedAtMs: number): Promise<string>;
  /** Records how a create attempt ended (unknown id: nothing). */
  endCreateAttempt(workflowId: string, attemptId: string, ending: CreateAttemptEnding): Promise<void>;
  /** The create attempts of a workflow, oldest first. */
  createAttempts(workflowId: string): Promise<CreateAttempt[]>;
  /** Forgets the create attempts of a workflow, once no orphan can be left to find. Idempotent. */
  forgetCreateAttempts(workflowId: string): Promise<void>;
  /** Stores a created session's key and claims it for its workflow (and its verification's data key). */
  claim(sessionId: string, claim: SessionClaim): Promise<void>;
  /** The workflow that claimed the session (kept after its key was destroyed), if any. */
  claimant(sessionId: string): Promise<string | undefined>;
  /** The data key of the session's verification (kept after its key was destroyed), if known. */
  dataKeyOf(sessionId: string): Promise<string | undefined>;
  /** The session's results access key; {@link SessionSecretMissingError} when there is none. */
  accessKey(sessionId: string): Promise<string>;
  /** Destroys the key; a tombstone keeps the claim. Idempotent. */
  destroy(sessionId: string): Promise<void>;
}

/** The results-access-key error every vault throws. */
export function secretMissing(sessionId: string): SessionSecretMissingError {
  return new SessionSecretMissingError(
    `no results access key for session ${sessionId} (redacted, or created elsewhere)`,
  );
}

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A session id in its canonical form (lower case); refuses anything that is not a uuid. */
export function canonicalSessionId(sessionId: string): string {
  if (!SESSION_ID.test(sessionId))
    throw new Error(`not a session id: ${String(JSON.stringify(sessionId)).slice(0, 80)}`);
  return sessionId.toLowerCase();
}

/**
 * The data key of a session's verification: the one its claim names, or for a run started
 * before data keys existed the one named after its workflow; undefined when nothing claimed it.
 */
export async function sessionDataKeyId(vault: SessionVault, sessionId: string): Promise<string | undefined> {
  const named = await vault.dataKeyOf(sessionId);
  if (named !== undefined) return named;
  const claimant = await vault.claimant(sessionId);
  return claimant === undefined ? undefined : legacyDataKeyId(claimant);
}
