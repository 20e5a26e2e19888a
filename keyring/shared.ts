import type { VersioningBehavior } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { KeyringEntry } from '../codec/keyring';
import { kindWorkflowId } from '../common/workflow-ids';
import { startMetadata, type StartMetadata } from '../common/user-metadata';

/** The default rotation period (`KeyringSettings.rotateEveryMs`, `IDV_KEY_ROTATION`). */
export const DEFAULT_KEY_ROTATION_MS = 60 * 60_000;

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
  /**
   * Whether this run has had the runs before it, which held keys since retired, deleted
   * (Temporal removes them shortly after): a rotation shreds only then (runs of earlier builds
   * do not say).
   */
  earlierRunsDeleted?: boolean;
}

/** The keyring's workflow ID: one per task queue (its workers share one store). */
export function keyringWorkflowId(taskQueue: string): string {
  return kindWorkflowId('keyring', taskQueue);
}

/** The keyring's summary and details in the Temporal UI (never a key: key ids and times only). */
export function keyringMetadata(taskQueue: string): StartMetadata {
  return startMetadata(`Keyring · ${taskQueue}`, [
    `**Holds the key-encryption keys** of the data keys of task queue ${taskQueue}`,
    'Rotates them on its schedule, re-wrapping every live data key',
  ]);
}

/** Query: the keyring's keys (no history is written). */
export const keyringQuery = defineQuery<KeyringView>('keyring');
/** Update (and update-with-start): the keyring's keys, once it has one. */
export const keyringUpdate = defineUpdate<KeyringView>('keyringKeys');
/** Signal: rotate now (an operator, or a test). */
export const rotateKeysSignal = defineSignal('rotateKeys');

/** The keyring's steps that can fail, as `idv_maintenance_failed{kind="keyring",step}` names them. */
export type KeyringStep =
  'rotation' | 'slow re-wrap' | 'deleting earlier runs' | 'starting anew' | 'checking for lost keys';

/** What the keyring carries into its next run. */
export interface KeyringInput {
  keys?: KeyringEntry[];
  lastRotation?: { startedAt: number; completedAt: number };
  /** The problems of its steps, by step: it asks for attention until each goes through. */
  problems?: Partial<Record<KeyringStep, string>>;
  /** A rotation asked for (`rotateKeys`) while the last one was under way. */
  rotateRequested?: boolean;
  /**
   * The `refreshMs` the last run told processes: one that read it may wrap under a key for twice
   * that, whatever this run's schedule says.
   */
  publishedRefreshMs?: number;
}

/** The keyring's workflow type, as workers register it and processes start it. */
export const KEYRING_WORKFLOW_TYPE = 'keyring';
/** The keyring lives as long as the deployment: it moves to the current build (continuing as new at each rotation). */
export const KEYRING_VERSIONING: VersioningBehavior = 'AUTO_UPGRADE';

/** The keyring (`idv-keyring-<taskQueue>`). */
export type KeyringWorkflow = (input: KeyringInput) => Promise<void>;
