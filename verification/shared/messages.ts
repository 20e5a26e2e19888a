import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Sealed } from '../../codec/sealed';
import type { RecordedEnding } from '../../stores/verification-records';
import { type NextStep, type VerificationProgress, type VerificationStatus } from '../domain/outcome';

/** What the `nextStep` update answers: enough for an HTTP handler to launch the user. */
export interface NextStepAnswer {
  reference: string;
  sessionId: string;
  nextStep: NextStep;
  collectionMethod: string;
  status: VerificationProgress['status'];
  /** The verification's data key: a start that joined a running verification learns it is not its own. */
  dataKeyId?: string;
}

// Names are stable API: clients in other languages address them by these strings.

/** Update (and update-with-start): resolves as soon as the session exists. */
export const nextStepUpdate = defineUpdate<NextStepAnswer>('nextStep');
/** Query: live progress. */
export const progressQuery = defineQuery<VerificationProgress>('progress');
/** Update: refresh the step's content now (for refreshable steps). */
export const refreshStepUpdate = defineUpdate<NextStep>('refreshStep');
/**
 * Update: hand the device's answer to a native challenge to the service: the token, or sealed
 * under the verification's data key (its progress says `takesSealedTokens`), as
 * `VerificationHandle` sends it, so that history holds it readable by no one once the
 * redaction destroys the key (the token as it is stays readable there to the payload keys).
 */
export const submitNativeChallengeUpdate = defineUpdate<
  VerificationProgress,
  [responseToken: string | Sealed]
>('submitNativeChallenge');
/** Signal: the user came back through the redirect: check the session now. */
export const redirectCapturedSignal = defineSignal('redirectCaptured');
/**
 * Update: cancel the verification (and the session at the service). The caller's reason is kept
 * in history only: `VerificationHandle` seals it under the verification's data key (free text may
 * name the person), so the redaction leaves it readable to no one.
 */
export const cancelUpdate = defineUpdate<VerificationProgress, [reason: string | Sealed]>('cancel');

/**
 * Signal to a redaction (`idv-redact-<sessionId>`): the caller has received the results, so a
 * redaction due "right after delivery" (`redactAfter: 0`) need not wait any longer.
 */
export const resultsDeliveredSignal = defineSignal('resultsDelivered');

/** How a verification ended, as told to the workflow named by its input's `reportTo` (no personal data). */
export interface VerificationEnding {
  reference: string;
  status: VerificationStatus;
  errorCode?: string;
  sessionId?: string;
}

/** Signal to the workflow named by a verification's `reportTo`: it has ended (its clean-up ran). */
export const verificationEndedSignal = defineSignal<[VerificationEnding]>('verificationEnded');

/** What a verification asks of its profile's orphan sweep. */
export interface LookForOrphans {
  /** Its creation, which its clean-up could not close (the store was away): the sweep closes it. */
  close?: CreationToClose;
}

/** Asks a running orphan sweep to look again soon (a verification that may have left an orphan). */
export const lookForOrphansSignal = defineSignal<[LookForOrphans?]>('lookForOrphans');

/** A verification whose creation its clean-up could not close (the store was away): the sweep closes it. */
export interface CreationToClose {
  workflowId: string;
  keptSessionId?: string;
  /** Its ending, for its record. */
  ending?: EndingToRecord;
}

/** How a verification ended, for its record (by reference). */
export type EndingToRecord = RecordedEnding & { reference: string };
