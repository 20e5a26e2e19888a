import { type Sealed } from '../../codec/sealed';
import { type NextStep } from '../../stores/session-vault';

// Zod-free, for workflow code (verification.ts holds the schemas): see the note there.

export type { NextStep };

/** The memo field holding a verification's `finalUrl` (the receiver reads it without a worker). */
export const FINAL_URL_MEMO = 'idvFinalUrl';

/** The final status of a verification. */
export type VerificationStatus = 'succeeded' | 'failed' | 'cancelled' | 'timed-out';

/** An attachment stored in the blob store, never in Temporal payloads. */
export interface AttachmentRef {
  id: string;
  type: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  uri: string;
}

/**
 * The error codes of our own in an outcome (beside the service's codes):
 * - `SessionNotFound`: the service answered 404 for the session, and again when read once more
 *   (a cancel was still sent: its 404, or its end of a session still there);
 * - `ResultsUnavailable`: the session succeeded but its results could not be fetched, came
 *   without identity data, or were never fetched because a Temporal cancel or a defect came
 *   between the success and the fetch, or a Temporal cancel came before the success was learnt (they
 *   are redacted all the same);
 * - `ServiceRefused`: the service refused for good (400, 401, 403, …) to create or read the session;
 * - `UnreadableAnswer`: the service answered something that cannot be read (a 200 of the wrong
 *   shape, an answer too large);
 * - `VerificationDefect`: a defect in the workflow code ended it (its clean-up ran).
 */
export const verificationErrorCodes = {
  sessionNotFound: 'SessionNotFound',
  resultsUnavailable: 'ResultsUnavailable',
  serviceRefused: 'ServiceRefused',
  unreadableAnswer: 'UnreadableAnswer',
  defect: 'VerificationDefect',
} as const;

/**
 * The outcome a verification workflow returns, however it ended (only input that breaks its
 * bounds fails the workflow instead). `errorCode` is the service's code, or one of
 * {@link verificationErrorCodes}.
 */
export interface VerificationOutcome {
  status: VerificationStatus;
  errorCode?: string;
  /** Absent when the verification ended before its session was created (deadline, cancel). */
  sessionId?: string;
  /** Identity data (person, document, match), when results were asked for and the session succeeded. */
  identity?: Record<string, unknown>;
  /** True when identity data was fetched but has been redacted since (its data key destroyed). */
  identityRedacted?: true;
  attachments?: AttachmentRef[];
  /** Set when Temporal no longer keeps the workflow: the outcome as its record tells it (no identity, no attachments). */
  fromRecord?: true;
}

/** The outcome as the workflow returns it: the identity data sealed under the verification's data key. */
export type SealedVerificationOutcome = Omit<
  VerificationOutcome,
  'identity' | 'identityRedacted' | 'fromRecord'
> & {
  identity?: Sealed;
};

/** Live view of a verification, answered by the `progress` query. */
export interface VerificationProgress {
  reference: string;
  /** The verification's data key (an id, not secret): the redaction destroys it. */
  dataKeyId: string;
  status: 'starting' | 'pending' | VerificationStatus;
  sessionId?: string;
  nextStep?: NextStep;
  collectionMethod?: string;
  errorCode?: string;
  startedAt: string;
  updatedAt: string;
  deadline: string;
  /** API calls made for this verification, by operation. */
  apiCalls: Record<string, number>;
  /**
   * True once the verification asked its profile's orphan sweep (`idv-orphans-<profile>`) to
   * look: a create attempt went unanswered, or a session was claimed that it does not keep.
   */
  orphanSweep: boolean;
  /**
   * Set when its clean-up could not close its creation (the store was away): the workflow that
   * closes it once the store answers (`idv-orphans-close:<its workflow ID>`), asking the orphan
   * sweep when an orphan may exist.
   */
  creationClose?: string;
  /**
   * Set by verifications that take a native challenge's token sealed under their data key
   * (releases after 1.0.0): `VerificationHandle.submitNativeChallenge` then seals it, so no
   * history holds it readable once the redaction destroys the key.
   */
  takesSealedTokens?: true;
  /** Set once the verification has ended: this is what its record tells (no step, no call counts). */
  fromRecord?: true;
}
