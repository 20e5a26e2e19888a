/** The step the user must take, as exposed to callers (no results access key). */
export interface NextStep {
  method: string;
  content: string;
  refresh?: { refreshAfter: string; expiresAt: string; timeToLiveSeconds: number } | null;
}

/** Thrown when a session's results access key is gone (redacted) or was never stored here. */
export class SessionSecretMissingError extends Error {
  override readonly name = 'SessionSecretMissingError';
}

/** A create attempt of a verification: recorded before it is sent, ended by what became of it. */
export interface CreateAttempt {
  /** Opaque, unique within the profile. */
  id: string;
  workflowId: string;
  profileId: string;
  startedAtMs: number;
  /** When the attempt ended (absent while it runs, or when its worker died during it). */
  endedAtMs?: number;
  /**
   * True when the service answered definitively (created and claimed, or refused with a 4xx):
   * no session of this attempt can exist unclaimed. False for lost answers, timeouts, 5xx,
   * cancelled attempts and crashes: the service may still carry such a create out, at any time.
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

/** A verification's creation, as its slot holds it. */
export interface Creation {
  /** The session it keeps (the first claimed for it), kept after the session's key was destroyed. */
  keptSessionId?: string;
  closed: boolean;
}

/** The session a verification keeps, as its create answered it (no results access key). */
export interface KeptSession {
  sessionId: string;
  collectionMethod: string;
  nextStep: NextStep;
}

/** What ties a created session to its verification. */
export interface SessionClaim {
  workflowId: string;
  profileId: string;
  resultsAccessKey: string;
  /** The verification's data key, so any redaction of the session can destroy it. */
  dataKeyId?: string;
  /** What the create answered, handed to a later attempt of the same verification. */
  collectionMethod: string;
  nextStep: NextStep;
}

/**
 * What became of a claim: the verification's session (the first one claimed for it, which may
 * be another than the one claimed now: that one is then an orphan); `closed` when the
 * verification no longer takes a session (it ended): the claimed one is an orphan; `swept`
 * when the orphan sweep took the session first (its answer came that late): it is the sweep's.
 */
export type ClaimOutcome = { kept: KeptSession } | { closed: true } | { swept: true };

/**
 * Keeps what must not travel through Temporal payloads and what makes creation safe: each
 * session's results access key, the claim that ties a session to its verification, each
 * verification's one kept session, the create attempts of each profile (so sessions the service
 * created for an attempt whose answer never came can be found), and the orphans to sweep.
 * Every worker of a deployment must share it.
 */
export interface SessionVault {
  /** Records that a create attempt starts now; resolves to its id. */
  recordCreateAttempt(attempt: {
    workflowId: string;
    profileId: string;
    startedAtMs: number;
  }): Promise<string>;
  /** Records how a create attempt ended (unknown id: nothing). */
  endCreateAttempt(profileId: string, attemptId: string, ending: CreateAttemptEnding): Promise<void>;
  /** The create attempts of a profile (of one verification, if given), oldest first. */
  createAttempts(profileId: string, workflowId?: string): Promise<CreateAttempt[]>;
  /** Forgets create attempts once nothing can come of them any more. Idempotent. */
  forgetCreateAttempts(profileId: string, attemptIds: readonly string[]): Promise<void>;
  /**
   * Stores a created session's key and claims it for its verification, atomically: the first
   * session claimed for a verification is the one it keeps; any other (a retry's, a late
   * attempt's, or one claimed after the verification closed its creation) is marked an orphan.
   * Claiming the kept session again answers it again. A session the sweep took, or one destroyed
   * (its tombstone is final), is not claimed: `swept`.
   */
  claim(sessionId: string, claim: SessionClaim): Promise<ClaimOutcome>;
  /**
   * Closes a verification's creation: no session claimed from now on is kept. A session claimed
   * for it other than `keptSessionId` (one it never learnt of) is marked an orphan. Idempotent;
   * resolves to the sessions it marked.
   */
  closeCreation(workflowId: string, keptSessionId?: string): Promise<string[]>;
  /**
   * The verification's creation, once it claimed a session or closed its creation (it ran):
   * the session it keeps, and whether it is closed (a new attempt is not to be sent). Undefined
   * before, and once forgotten.
   */
  creation(workflowId: string): Promise<Creation | undefined>;
  /**
   * Forgets a verification's creation (its slot), long after it closed: its workflow ID may start
   * a new verification (a reference whose record was purged). Its sessions' tombstones stay (a
   * late claim of one is refused), naming {@link PURGED} instead of the workflow ID, which names
   * the reference the purge drops; a session not destroyed yet (an orphan still to sweep, its
   * write racing none here) keeps it. Idempotent.
   */
  forgetCreation(workflowId: string): Promise<void>;
  /** The sessions of a profile marked orphans and not swept yet. */
  orphans(profileId: string): Promise<string[]>;
  /**
   * Takes a session nothing claimed for the orphan sweep, atomically against a claim: a tombstone
   * and an orphan mark; a claim that comes later is refused (`swept`). False when something
   * claimed it already (it is not the sweep's to take).
   */
  takeOrphan(sessionId: string, profileId: string): Promise<boolean>;
  /** The orphan of this profile was swept: its mark goes (its claim and tombstone stay). Idempotent. */
  orphanSwept(sessionId: string, profileId: string): Promise<void>;
  /**
   * The sessions among these (canonical ids) that are accounted for: kept by their
   * verification, marked orphans, taken by the sweep, or destroyed. A session whose claim was
   * cut short before its verification decided it is not.
   */
  accountedFor(sessionIds: readonly string[]): Promise<Set<string>>;
  /** The workflow that claimed the session (kept after its key was destroyed), if any. */
  claimant(sessionId: string): Promise<string | undefined>;
  /**
   * The data key the session's data is sealed under (kept after its key was destroyed): its
   * verification's, if known, unless the verification kept another session (an orphan's data is
   * never fetched, and redacting it must not destroy the key of the verification that runs).
   */
  dataKeyOf(sessionId: string): Promise<string | undefined>;
  /** The session's results access key; {@link SessionSecretMissingError} when there is none. */
  accessKey(sessionId: string): Promise<string>;
  /**
   * Destroys the key; a tombstone keeps the claim (or, for a session nothing claimed, records
   * that it was swept, so it counts as claimed). Idempotent.
   */
  destroy(sessionId: string): Promise<void>;
}

/** The results-access-key error every vault throws. */
export function secretMissing(sessionId: string): SessionSecretMissingError {
  return new SessionSecretMissingError(
    `no results access key for session ${sessionId} (redacted, or created elsewhere)`,
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a uuid, the form of the service's ids (sessions, profiles). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A session id in its canonical form (lower case); refuses anything that is not a uuid. */
export function canonicalSessionId(sessionId: string): string {
  if (!isUuid(sessionId))
    throw new Error(`not a session id: ${String(JSON.stringify(sessionId)).slice(0, 80)}`);
  return sessionId.toLowerCase();
}

/** A verification profile id (a uuid) in its canonical form; it names folders and rows. */
export function canonicalProfileId(profileId: string): string {
  if (!isUuid(profileId))
    throw new Error(`not a verification profile id: ${String(JSON.stringify(profileId)).slice(0, 80)}`);
  return profileId.toLowerCase();
}

/** Written in the tombstone of a session a sweep found unclaimed (either store). */
export const SWEPT = 'swept';

/** Written in place of the claimant of a purged verification's sessions (either store). */
export const PURGED = 'purged';

/** The workflow a stored claimant names: none for the sweep's tombstones and purged ones. */
export function claimantNamed(stored: string | undefined): string | undefined {
  return stored === SWEPT || stored === PURGED ? undefined : stored;
}
