import type { VersioningBehavior } from '@temporalio/common';
import type { SealedVerificationOutcome } from '../domain/outcome';
import type { VerificationInput } from '../domain/verification';
import type { CreationToClose } from './messages';

/** The verification workflows' types, as workers register them and clients start them. */
export const verificationWorkflowTypes = {
  session: 'verificationSession',
  redaction: 'sessionRedaction',
  orphanSweep: 'orphanSweep',
  creationClose: 'creationClose',
} as const;

/**
 * How each runs across builds (Worker Versioning): a verification stays on the build that
 * started it (days at most); its redaction and the orphan sweep, which can wait a week in their
 * bounded steps, move to the current build (their code changes replay-safely, with `patched`).
 */
export const verificationVersioning = {
  session: 'PINNED',
  redaction: 'AUTO_UPGRADE',
  orphanSweep: 'AUTO_UPGRADE',
  creationClose: 'AUTO_UPGRADE',
} as const satisfies Record<keyof typeof verificationWorkflowTypes, VersioningBehavior>;

/** A verification (`idv-<reference>`), as clients start it. */
export type VerificationSessionWorkflow = (input: VerificationInput) => Promise<SealedVerificationOutcome>;
/** A redaction (`idv-redact-<session>`). */
export type SessionRedactionWorkflow = (args: RedactionArgs) => Promise<RedactionReport>;
/** A profile's orphan sweep (`idv-orphans-<profile>`). */
export type OrphanSweepWorkflow = (input: OrphanSweepInput) => Promise<OrphanSweepSummary>;

/** How `sessionRedaction` runs. */
export interface RedactionArgs {
  /** Absent for a verification that never got a session: only its data key is destroyed. */
  sessionId?: string;
  /** The verification's data key, destroyed with the rest (without it: the one the session's claim names). */
  dataKeyId?: string;
  delayMs: number;
  /**
   * The results are due "right after delivery" (`redactAfter: 0` with results fetched): wait for
   * the caller's `resultsDelivered` signal, at most {@link DELIVERY_GRACE_MS}, before deleting.
   */
  awaitDelivery?: boolean;
  /** False: only end the session (the verification keeps its data, `redactAfter: 'never'`). @default true */
  redact?: boolean;
  /** The verification saw the session finished at the service: there is nothing to end. */
  sessionDone?: boolean;
  /** The verification's reference: its record tells when its data was erased. */
  reference?: string;
  /**
   * When it is due, for one started with a start delay until then (`delayMs` 0): a cancel that
   * starts it early erases only at this time.
   */
  dueAt?: string;
  /**
   * This run looks again, `delayMs` after a redaction to which the service answered that it does
   * not know the session (a 404, which the interface does not define: a gateway's may last a
   * while): it ends the session if the service serves it again, then redacts it (not with
   * `redact: false`). It erases nothing of ours (that run did); while the service still says it
   * does not know the session it looks again later, a bounded number of times
   * (`idv-redact-again-<session>`, `idv-end-again-<session>`).
   */
  recheck?: boolean;
}

/**
 * How long after the service answered that it does not know a session (404 to its ending or its
 * redaction, and to GetSession) that session is looked at again: a gateway's 404s may last
 * longer than the seconds those answers are read again over, while the session stays live.
 */
export const RECHECK_AFTER_MS = 60 * 60_000;

/**
 * The run that looks again at a session the service said it did not know, started with a start
 * delay of {@link RECHECK_AFTER_MS}: it ends the session if it is served again, and redacts it
 * unless `redact` is false.
 */
export function lookAgainArgs(sessionId: string, redact: boolean): RedactionArgs {
  return { sessionId, delayMs: 0, recheck: true, ...(redact ? {} : { redact: false }) };
}

/** What `sessionRedaction` reports. */
export interface RedactionReport {
  /** Absent when the verification had no session (only its data key was destroyed). */
  sessionId?: string;
  redactedAt: string;
  /** False when the service no longer knew the session (already removed). */
  redactedAtService: boolean;
  attachmentsDeleted: number;
  /** True when the verification's data key was destroyed (every sealed copy of its data unreadable). */
  dataKeyDestroyed?: boolean;
}

/** A verification's creation closed by a workflow of its own (`idv-orphans-close:<verification>`). */
export type CreationCloseWorkflow = (args: CreationCloseArgs) => Promise<CreationCloseReport>;

/** How `creationClose` runs: the close a verification's clean-up could not make (the store was away). */
export interface CreationCloseArgs {
  verificationProfileId: string;
  close: CreationToClose;
}

/** What `creationClose` did. */
export interface CreationCloseReport {
  /** The verification whose creation it closed. */
  workflowId: string;
  /** The profile's orphan sweep was asked: an orphan of the verification may exist. */
  sweepAsked: boolean;
}

/**
 * A listing of the orphan sweep that one look could not finish (a profile with many sessions
 * since): the next look reads whole what was created since `freshFromMs`, then goes on where it
 * stopped, until it reaches `fromMs`. The service lists by page number, newest first, so where it
 * stopped moves: later by the sessions created since, earlier by any the service stopped listing.
 * The next look finds it again from `page`, the sessions newer than `newestMs` it counts, and
 * `stoppedAtMs`.
 */
export interface LastListingCursor {
  fromMs: number;
  /** The page to read next, as the service numbered its pages then. */
  page: number;
  freshFromMs: number;
  /** The time the listing covered when it began: attempts whose windows closed later wait for the next. */
  beganAtMs: number;
  /** The creation date of the newest session listed then (the service's clock). */
  newestMs?: number;
  /** The creation date of the last session read: every session listed before it was read. */
  stoppedAtMs?: number;
}

/** Input of {@link orphanSweep}. */
export interface OrphanSweepInput {
  verificationProfileId: string;
  /** Verifications whose creation their clean-up could not close (the store was away). */
  toClose?: CreationToClose[];
  /** Set by the sweep itself when it continues as new. */
  carried?: { coveredToMs?: number; lastListing?: LastListingCursor; failingSinceMs?: number; swept: number };
}

/** What a sweep did, when nothing was left to look for. */
export interface OrphanSweepSummary {
  verificationProfileId: string;
  /** Orphans swept over the sweep's life (cancelled if live, redacted, keys destroyed). */
  swept: number;
}
