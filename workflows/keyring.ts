import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import type { KeyringSchedule } from '../activities/keyring-activities';
import { describeFailure } from './bounded-step';
import { countGiveUp } from './maintenance';
import { type KeyringKey, keyringQuery, keyringUpdate, type KeyringView, rotateKeysSignal } from './messages';
import { IdvStatus, NEEDS_ATTENTION } from './search-attributes';

// No schedule-to-close bound: a keyring that failed would take every live data key with it, so
// its steps wait for a worker however long none runs, and a rotation that fails is tried again.
const { keyringSchedule, newKeyEncryptionKey, deleteEarlierRuns } = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumInterval: '1 minute' },
});
const { rewrapDataKeys } = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** What the keyring carries into its next run. */
export interface KeyringInput {
  keys?: KeyringKey[];
  lastRotation?: { startedAt: number; completedAt: number };
  /** The last rotation gave up (the keyring is marked for attention until one succeeds). */
  attention?: boolean;
}

/**
 * The keyring of a deployment (`idv-keyring-<taskQueue>`): the key-encryption keys the store's
 * data keys are wrapped under. They live here only, never in the store, so no copy of the store
 * (a dump, its WAL, a replica, a backup) opens a data key without them. On schedule it rotates:
 * a new current key; once every process has learnt it, every live data key wrapped under an
 * older one is re-wrapped under it (`rewrapDataKeys`); then the older keys are forgotten, the
 * keyring continues as new and deletes its earlier runs, so a destroyed data key is gone from
 * every copy of the store. A rotation that cannot re-wrap keeps the older keys (nothing is lost),
 * is counted and marks the keyring for attention, and is tried again at the next due time.
 */
export async function keyring(input: KeyringInput): Promise<void> {
  // A cancelled keyring would take every live data key with it: cancellation is not for it.
  return await CancellationScope.nonCancellable(() => runKeyring(input));
}

/** The keyring's state; its methods are its transitions. */
class KeyringState {
  keys: KeyringKey[];
  lastRotation: KeyringInput['lastRotation'];
  schedule: KeyringSchedule | undefined;
  rotateRequested = false;
  attention = false;
  /** The last rotation tried, done or not: the next is due a period later. */
  #lastTriedAt: number;

  constructor(input: KeyringInput) {
    this.keys = [...(input.keys ?? [])];
    this.lastRotation = input.lastRotation;
    this.attention = input.attention === true;
    this.#lastTriedAt = input.lastRotation?.startedAt ?? Date.now();
  }

  get ready(): boolean {
    return this.keys.length > 0 && this.schedule !== undefined;
  }

  get nextRotationAt(): number {
    return this.#lastTriedAt + (this.schedule?.rotateEveryMs ?? 0);
  }

  /** What processes read; no keys until it has its schedule and a key. */
  view(): KeyringView {
    return {
      keys: this.ready ? this.keys : [],
      refreshMs: this.schedule?.refreshMs ?? 0,
      ...(this.lastRotation ? { lastRotation: this.lastRotation } : {}),
      nextRotationAt: this.nextRotationAt,
    };
  }

  beginRotation(): number {
    this.rotateRequested = false;
    this.#lastTriedAt = Date.now();
    return this.#lastTriedAt;
  }

  /** A rotation re-wrapped every live data key under `current`: the older keys go. */
  rotated(current: KeyringKey, startedAt: number): void {
    if (this.attention) upsertSearchAttributes([{ key: IdvStatus, value: 'ok' }]);
    this.attention = false;
    this.keys = [current];
    this.lastRotation = { startedAt, completedAt: Date.now() };
  }

  /** A rotation gave up: the older keys stay (nothing is lost), and the keyring asks for attention. */
  rotationFailed(): void {
    if (!this.attention) upsertSearchAttributes([{ key: IdvStatus, value: NEEDS_ATTENTION }]);
    this.attention = true;
  }
}

async function runKeyring(input: KeyringInput): Promise<void> {
  const state = new KeyringState(input);
  // Handlers first: an update-with-start arrives with the first task.
  setHandler(keyringQuery, () => state.view());
  setHandler(keyringUpdate, async () => {
    await condition(() => state.ready);
    return state.view();
  });
  setHandler(rotateKeysSignal, () => {
    state.rotateRequested = true;
  });
  state.schedule = await keyringSchedule();
  if (state.keys.length === 0) state.keys = [await newKeyEncryptionKey()];
  // The runs before this one held keys since retired: gone from Temporal too.
  const { workflowId, runId, continuedFromExecutionRunId } = workflowInfo();
  await deleteEarlierRuns({
    workflowId,
    keepRunId: runId,
    ...(continuedFromExecutionRunId ? { previousRunId: continuedFromExecutionRunId } : {}),
  }).catch((error: unknown) => {
    log.warn('deleting the keyring’s earlier runs failed; the next run tries again', {
      reason: describeFailure(error),
    });
  });

  for (;;) {
    await condition(() => state.rotateRequested, Math.max(1, state.nextRotationAt - Date.now()));
    const startedAt = state.beginRotation();
    const rotated = await rotate(state.keys, state.schedule.refreshMs, (added) => {
      state.keys = [...state.keys, added];
    });
    if (rotated) {
      state.rotated(rotated, startedAt);
      break;
    }
    state.rotationFailed();
    if (workflowInfo().continueAsNewSuggested) break;
  }
  // After a rotation (its retired keys then deleted with this run), or a history grown long.
  await condition(allHandlersFinished);
  return await continueAsNew<typeof keyring>({
    keys: state.keys,
    ...(state.lastRotation ? { lastRotation: state.lastRotation } : {}),
    ...(state.attention ? { attention: true } : {}),
  });
}

/**
 * One rotation: a new key made current, time for every process to learn it (they wrap under a
 * current key for at most twice `refreshMs` after they asked), then every live data key under
 * an older key re-wrapped. Resolves to the new key, or undefined when it gave up (counted).
 */
async function rotate(
  keys: readonly KeyringKey[],
  refreshMs: number,
  add: (key: KeyringKey) => void,
): Promise<KeyringKey | undefined> {
  try {
    const current = await newKeyEncryptionKey();
    add(current);
    await sleep(3 * refreshMs);
    await rewrapDataKeys({ keys: [...keys, current], currentId: current.id });
    return current;
  } catch (error) {
    countGiveUp({ kind: 'keyring', step: 'rotation' });
    log.error('a key rotation could not re-wrap the data keys; the older keys stay until the next', {
      reason: describeFailure(error),
    });
    return undefined;
  }
}
