import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CreationToClose } from '../activities/cleanup-activities';
import type { KeyringEntry } from '../codec/keyring';
import { type NextStep, type VerificationProgress, type VerificationStatus } from '../domain/verification';

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
/** Update: hand the device's answer to a native challenge to the service. */
export const submitNativeChallengeUpdate = defineUpdate<VerificationProgress, [responseToken: string]>(
  'submitNativeChallenge',
);
/** Signal: the user came back through the redirect: check the session now. */
export const redirectCapturedSignal = defineSignal('redirectCaptured');
/** Update: cancel the verification (and the session at the service). */
export const cancelUpdate = defineUpdate<VerificationProgress, [reason: string]>('cancel');

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

/** The ID of a profile's orphan sweep: one per profile (`orphans-` is refused as a reference's start). */
export function orphanSweepWorkflowId(verificationProfileId: string): string {
  return `idv-orphans-${verificationProfileId.toLowerCase()}`;
}

/** What the keyring answers: its keys (the last is current), and when processes must look again. */
export interface KeyringView {
  keys: KeyringEntry[];
  /** A process wraps under the current key only for this long after it looked. */
  refreshMs: number;
  /** When the last rotation started and completed (epoch ms): keys retired then are gone. */
  lastRotation?: { startedAt: number; completedAt: number };
  /** When the next rotation is due (epoch ms). */
  nextRotationAt: number;
  /** Why the keyring asks for attention (a step that gave up), if it does. */
  attention?: string;
}

/** The keyring's workflow ID: one per task queue (its workers share one store). */
export function keyringWorkflowId(taskQueue: string): string {
  return `idv-keyring-${taskQueue}`;
}

/** Query: the keyring's keys (no history is written). */
export const keyringQuery = defineQuery<KeyringView>('keyring');
/** Update (and update-with-start): the keyring's keys, once it has one. */
export const keyringUpdate = defineUpdate<KeyringView>('keyringKeys');
/** Signal: rotate now (an operator, or a test). */
export const rotateKeysSignal = defineSignal('rotateKeys');
