import { showDetails } from '../common/current-details';
import { keyringMetadata } from './shared';
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { KeyringActivities, KeyringSchedule } from './activities';
import { describeFailure } from '../common/bounded-step';
import { countGiveUp } from '../common/maintenance';
import { markdownLines } from '../common/user-metadata';
import {
  DEFAULT_KEY_ROTATION_MS,
  type KeyringInput,
  keyringQuery,
  type KeyringStep,
  keyringUpdate,
  type KeyringView,
  rotateKeysSignal,
} from './shared';
import type { KeyringEntry } from '../codec/keyring';
import { IdvStatus, NEEDS_ATTENTION } from '../common/search-attributes';
import { KEYRING_VERSIONING } from './shared';
import { setWorkflowOptions } from '@temporalio/workflow';

// No schedule-to-close bound on what the keys depend on: a keyring that failed would take every
// live data key with it, so these steps wait for a worker however long none runs.
const { keyringSchedule, newKeyEncryptionKey } = proxyActivities<KeyringActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumInterval: '1 minute' },
});
// Bounded: a refusal (a namespace where workers may not delete executions) must not hold rotations.
const { deleteEarlierRuns, liveKeysUnderOtherKeys } = proxyActivities<KeyringActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '10 minutes',
  retry: { maximumInterval: '1 minute' },
});
// A large store takes long: the re-wrap resumes where an attempt stopped (its heartbeat).
const { rewrapDataKeys } = proxyActivities<KeyringActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 day',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The patch under which a rotation that re-wraps for longer than the rotation period asks for
 * attention meanwhile: a store refusing the re-wrap's writes is retried for a day, and until a
 * rotation goes through a destroyed data key still opens from a copy of the store with the
 * current keys. The re-wrap goes on; one that ends clears it.
 */
export const SLOW_REWRAP_SAID = 'slow-rewrap-said';

/**
 * The patch under which a keyring started anew that could not check the store for data keys of
 * an earlier keyring (the check's bound ran out) asks for attention; runs of release 1.0.0 took
 * that for "nothing lost". Asked only then.
 */
export const UNCHECKED_START_SAID = 'unchecked-start-said';

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
  keys: KeyringEntry[];
  lastRotation: KeyringInput['lastRotation'];
  schedule: KeyringSchedule | undefined;
  rotateRequested: boolean;
  #problems: Partial<Record<KeyringStep, string>>;
  readonly #publishedBefore: number;
  /** The last rotation tried, done or not: the next is due a period later. */
  #lastTriedAt: number;
  /** This run has deleted the runs before it (which held keys since retired). */
  #earlierRunsDeleted = false;

  constructor(input: KeyringInput) {
    this.keys = [...(input.keys ?? [])];
    this.lastRotation = input.lastRotation;
    this.#problems = { ...input.problems };
    this.rotateRequested = input.rotateRequested === true;
    this.#publishedBefore = input.publishedRefreshMs ?? 0;
    this.#lastTriedAt = input.lastRotation?.startedAt ?? Date.now();
  }

  get ready(): boolean {
    return this.keys.length > 0 && this.schedule !== undefined;
  }

  get nextRotationAt(): number {
    return this.#lastTriedAt + (this.schedule?.rotateEveryMs ?? 0);
  }

  /** How long a rotation waits before re-wrapping: three times the longest refresh any reader holds. */
  get learnMs(): number {
    return 3 * Math.max(this.schedule?.refreshMs ?? 0, this.#publishedBefore);
  }

  /** What processes read; no keys until it has its schedule and a key. */
  view(): KeyringView {
    return {
      keys: this.ready ? this.keys : [],
      refreshMs: this.schedule?.refreshMs ?? 0,
      ...(this.lastRotation ? { lastRotation: this.lastRotation } : {}),
      nextRotationAt: this.nextRotationAt,
      ...(this.attention ? { attention: this.attention } : {}),
      earlierRunsDeleted: this.#earlierRunsDeleted,
    };
  }

  /** The runs before this one are deleted from Temporal. */
  earlierRunsGone(): void {
    this.#earlierRunsDeleted = true;
  }

  beginRotation(): number {
    this.rotateRequested = false;
    this.#lastTriedAt = Date.now();
    return this.#lastTriedAt;
  }

  /** A rotation re-wrapped every live data key under `current`: the older keys go. */
  rotated(current: KeyringEntry, startedAt: number): void {
    this.keys = [current];
    this.lastRotation = { startedAt, completedAt: Date.now() };
    this.attend('rotation', undefined);
  }

  /**
   * Records (or clears) the problem of one step; the keyring asks for attention while any step
   * has one. Each new problem is counted once as a give-up, unless `counted` is false (a step
   * still under way).
   */
  attend(step: KeyringStep, problem: string | undefined, options: { counted?: boolean } = {}): void {
    const before = this.attention;
    if (problem && !this.#problems[step] && options.counted !== false) countGiveUp({ kind: 'keyring', step });
    this.#problems = { ...this.#problems, [step]: problem };
    const now = this.attention;
    if (Boolean(before) !== Boolean(now))
      upsertSearchAttributes([{ key: IdvStatus, value: now ? NEEDS_ATTENTION : 'ok' }]);
  }

  /** The step has a problem (said until it goes through). */
  hasProblem(step: KeyringStep): boolean {
    return this.#problems[step] !== undefined;
  }

  /** Why the keyring asks for attention, if it does. */
  get attention(): string | undefined {
    const problems = Object.values(this.#problems).filter(Boolean);
    return problems.length > 0 ? problems.join('; ') : undefined;
  }

  /** What the next run starts from. */
  carry(): KeyringInput {
    return {
      keys: this.keys,
      ...(this.lastRotation ? { lastRotation: this.lastRotation } : {}),
      ...(this.attention ? { problems: this.#problems } : {}),
      ...(this.rotateRequested ? { rotateRequested: true } : {}),
      ...(this.schedule ? { publishedRefreshMs: this.schedule.refreshMs } : {}),
    };
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
  if (state.keys.length === 0) {
    const first = await newKeyEncryptionKey();
    state.keys = [first];
    await checkNothingIsLost(state, first);
  }
  await deleteRetiredRuns(state);

  for (;;) {
    showDetails(
      markdownLines([
        `**${state.keys.length} key${state.keys.length === 1 ? '' : 's'}**, the current one ${state.keys.at(-1)?.id ?? 'none'}`,
        `Next rotation: ${new Date(state.nextRotationAt).toISOString()}`,
      ]),
      () => keyringMetadata(workflowInfo().taskQueue).staticSummary,
    );
    await condition(() => state.rotateRequested, Math.max(1, state.nextRotationAt - Date.now()), {
      summary: 'until the next rotation',
    });
    const startedAt = state.beginRotation();
    const rotated = await rotate(state, (added) => {
      state.keys = [...state.keys, added];
    });
    if (rotated) {
      state.rotated(rotated, startedAt);
      // Every live data key of this keyring is under the new key now: any left under another
      // is an earlier keyring's, as the check at a fresh start would have found.
      if (state.hasProblem('checking for lost keys')) await checkNothingIsLost(state, rotated);
      break;
    }
    if (workflowInfo().continueAsNewSuggested) break;
  }
  // After a rotation (its retired keys then deleted with this run), or a history grown long.
  await condition(allHandlersFinished);
  return await continueAsNew<typeof keyring>(state.carry());
}

/**
 * A keyring started anew (terminated, its history gone, another Temporal) cannot open data keys
 * wrapped under the keys of the one before: said loudly, since those verifications' data is lost.
 */
async function checkNothingIsLost(state: KeyringState, current: KeyringEntry): Promise<void> {
  let orphaned: number;
  try {
    orphaned = await liveKeysUnderOtherKeys({ currentId: current.id });
  } catch (error) {
    // A check that could not be made is no proof that nothing is lost: said, and made again
    // after each rotation until it goes through.
    if (!patched(UNCHECKED_START_SAID)) return;
    log.error('the keyring started anew and could not check the store for data keys of an earlier keyring', {
      reason: describeFailure(error),
    });
    state.attend(
      'checking for lost keys',
      `the keyring started anew and could not check the store for data keys of an earlier keyring: ${describeFailure(error)}`,
    );
    return;
  }
  state.attend('checking for lost keys', undefined);
  if (orphaned === 0) return;
  log.error('the keyring started anew while the store holds data keys of an earlier keyring', { orphaned });
  state.attend(
    'starting anew',
    `the keyring started anew: ${orphaned}+ live data keys are wrapped under keys it never had (their data cannot be opened)`,
  );
}

/** The runs before this one held keys since retired: gone from Temporal too (tried again each run). */
async function deleteRetiredRuns(state: KeyringState): Promise<void> {
  const { workflowId, runId, continuedFromExecutionRunId } = workflowInfo();
  try {
    await deleteEarlierRuns({
      workflowId,
      keepRunId: runId,
      ...(continuedFromExecutionRunId ? { previousRunId: continuedFromExecutionRunId } : {}),
    });
    state.earlierRunsGone();
    state.attend('deleting earlier runs', undefined);
  } catch (error) {
    log.error('deleting the keyring’s earlier runs failed; the next run tries again', {
      reason: describeFailure(error),
    });
    state.attend(
      'deleting earlier runs',
      `its earlier runs, holding retired keys, could not be deleted: ${describeFailure(error)}`,
    );
  }
}

/**
 * One rotation: a new key made current, time for every process to learn it (they wrap under a
 * current key for at most twice the `refreshMs` they read), then every live data key under an
 * older key re-wrapped. Resolves to the new key, or undefined when it gave up (counted).
 */
async function rotate(
  state: KeyringState,
  add: (key: KeyringEntry) => void,
): Promise<KeyringEntry | undefined> {
  try {
    const current = await newKeyEncryptionKey();
    add(current);
    await sleep(state.learnMs, { summary: 'until every process has learnt the new key' });
    const rewrap = rewrapDataKeys({ keys: state.keys, currentId: current.id });
    if (patched(SLOW_REWRAP_SAID)) await saidWhenSlow(state, rewrap);
    else await rewrap;
    state.attend('slow re-wrap', undefined);
    return current;
  } catch (error) {
    log.error('a key rotation could not re-wrap the data keys; the older keys stay until the next', {
      reason: describeFailure(error),
    });
    // The give-up first, then the notice of a re-wrap under way goes: no moment says all is well.
    state.attend('rotation', `a rotation could not re-wrap the data keys: ${describeFailure(error)}`);
    state.attend('slow re-wrap', undefined);
    return undefined;
  }
}

/** Awaits the re-wrap; past the rotation period the keyring asks for attention meanwhile. */
async function saidWhenSlow(state: KeyringState, rewrap: Promise<unknown>): Promise<void> {
  const periodMs = state.schedule?.rotateEveryMs ?? DEFAULT_KEY_ROTATION_MS;
  const watch = new CancellationScope();
  const watching = watch
    .run(() => sleep(periodMs, { summary: 'until a re-wrap that lasts asks for attention' }))
    .then(
      () =>
        state.attend(
          'slow re-wrap',
          `a rotation has not re-wrapped the data keys within its period (${Math.round(periodMs / 1000)} s; it goes on trying for a day): check that the workers can write to the store`,
          { counted: false },
        ),
      () => undefined,
    );
  try {
    await rewrap;
  } finally {
    watch.cancel();
    await watching;
  }
}

setWorkflowOptions({ versioningBehavior: KEYRING_VERSIONING }, keyring);
