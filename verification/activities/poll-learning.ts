import { type CompletionTimesStore } from '../../stores/completion-times-store';
import { CompletionTimes } from '../domain/completion-times';
import { type InspectionCurve } from '../domain/inspection-curve';

/**
 * How a worker places polls: `learned`, by each provider's completion times as its workers saw
 * them (a provider with too few seen, and a session whose user came back, by the fixed rule);
 * `rule`, by the fixed rule only (the first interval growing by half to the longest).
 */
export const pollPlacementModes = ['learned', 'rule'] as const;
export type PollPlacementMode = (typeof pollPlacementModes)[number];

/** Options of {@link PollLearning}. */
export interface PollLearningOptions {
  /** Where every worker's counts meet (`IdvStore.completionTimes`). */
  store: CompletionTimesStore;
  /** How often this process hands its counts to the store and reads everyone's. @default 30_000 */
  syncEveryMs?: number;
  /** Told once when the store cannot be reached (until it can again); polls keep their placement meanwhile. @default nothing */
  warn?: (message: string) => void;
  /** @default Date.now */
  now?: () => number;
}

/** A series' session seen running here, and when: its next poll's exposure starts there. */
interface Seen {
  provider: string;
  ageMs: number;
  /** Which of the session's polls saw it (see {@link PollLearning.running}). */
  poll: number;
  at: number;
}

/**
 * A store call taking longer than this counts as failed: the sync ends, so a hung store cannot
 * stop later ones. Counts it was adding are then neither kept nor handed back (a late success
 * must not count them twice).
 */
const STORE_CALL_MS = 10_000;

/** A series not polled here for this long is forgotten (its polls moved to another worker, or it ended otherwise). */
const FORGET_AFTER_MS = 15 * 60_000;

/**
 * What this worker's polls learn of each provider's completion times (see `CompletionTimes`):
 * each poll that finds a session running counts the time since the previous one as running; the
 * poll that finds it done counts a completion halfway between the two. Only a pair of consecutive
 * polls of one series (the polls of one held attempt, or the one-poll attempts of one poll
 * activity) that both ran here counts: with several workers a session's polls go to any of them, and a worker
 * counting from the last poll it saw would count again what another worker counted between, so
 * that running time would be counted up to once per worker against one completion. The pairs
 * that count are a sample of all pairs independent of when sessions complete, so the curve stays
 * true; it is learned from 1/W of the polls with W workers. The counts go to the
 * store every {@link PollLearningOptions.syncEveryMs}, and the store's totals (every worker's)
 * come back, so that every worker places polls from what all of them saw.
 */
export class PollLearning {
  readonly #times = new CompletionTimes();
  readonly #seen = new Map<string, Seen>();
  readonly #store: CompletionTimesStore;
  readonly #syncEveryMs: number;
  readonly #warn: (message: string) => void;
  readonly #now: () => number;
  #syncedAt = Number.NEGATIVE_INFINITY;
  #syncing = false;
  /** A sync fell due while one was under way: it runs when that one ends, not at the next poll, which may be long in coming. */
  #dueMeanwhile = false;
  #warned = false;

  constructor(options: PollLearningOptions) {
    this.#store = options.store;
    this.#syncEveryMs = options.syncEveryMs ?? 30_000;
    this.#warn = options.warn ?? (() => undefined);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Poll number `poll` of a `series` (one poll activity's attempts: 0 when it starts, then 1, 2,
   * …) found its session running `ageMs` after the verification started.
   */
  running(series: string, provider: string, ageMs: number, poll: number): void {
    const now = this.#now();
    const last = this.#previous(series, provider, ageMs, poll);
    if (last) this.#times.observe(provider, last.ageMs, ageMs, false);
    this.#seen.set(series, { provider, ageMs, poll, at: now });
    this.#tend(now);
  }

  /**
   * Poll number `poll` of a `series` found its session done `ageMs` after the verification
   * started. Counted only when the poll before it ran here (the completion lies between the two).
   */
  completed(series: string, provider: string, ageMs: number, poll: number): void {
    const last = this.#previous(series, provider, ageMs, poll);
    this.#seen.delete(series);
    if (last) this.#times.observe(provider, last.ageMs, (last.ageMs + ageMs) / 2, true);
    this.#tend(this.#now());
  }

  /** The provider's learned curve, or undefined while too few of its completions were seen. */
  curve(provider: string): InspectionCurve | undefined {
    return this.#times.curve(provider);
  }

  /**
   * Poll number `poll` of a `series` learnt nothing of its session (no turn under the budget, a
   * 429, a failed call): the last poll seen here stays the previous one for the next poll's count.
   */
  notPolled(series: string, poll: number): void {
    const last = this.#seen.get(series);
    if (last?.poll === poll - 1) last.poll = poll;
  }

  /** What this worker saw at the series' poll right before `poll`, if that poll ran here. */
  #previous(series: string, provider: string, ageMs: number, poll: number): Seen | undefined {
    const last = this.#seen.get(series);
    if (!last || last.provider !== provider || last.poll !== poll - 1 || ageMs < last.ageMs) return undefined;
    return last;
  }

  /** Forgets stale series and syncs with the store when due (in the background, one at a time). */
  #tend(now: number): void {
    if (now - this.#syncedAt < this.#syncEveryMs) return;
    if (this.#syncing) {
      this.#dueMeanwhile = true;
      return;
    }
    this.#syncing = true;
    this.#syncedAt = now;
    for (const [series, seen] of this.#seen) if (now - seen.at > FORGET_AFTER_MS) this.#seen.delete(series);
    void this.#sync().finally(() => {
      this.#syncing = false;
      if (!this.#dueMeanwhile) return;
      this.#dueMeanwhile = false;
      this.#tend(this.#now());
    });
  }

  async #sync(): Promise<void> {
    const taken = this.#times.takePending();
    try {
      if (taken.size > 0) await bounded(this.#store.add(taken));
    } catch (error) {
      if (!(error instanceof StoreTimeoutError)) this.#times.putBack(taken);
      return this.#failed(error);
    }
    try {
      this.#times.shared(await bounded(this.#store.read()));
      this.#warned = false;
    } catch (error) {
      this.#failed(error);
    }
  }

  #failed(error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#warn(
      `could not share completion times through the store (polls are placed from what this worker knows until it can): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Thrown when a store call took longer than {@link STORE_CALL_MS}. */
class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
}

/** `call`, or a {@link StoreTimeoutError} after {@link STORE_CALL_MS}. */
async function bounded<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreTimeoutError(`no answer in ${STORE_CALL_MS} ms`)),
      STORE_CALL_MS,
    );
  });
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
