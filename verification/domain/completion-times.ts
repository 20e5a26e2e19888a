import {
  addCounts,
  BIN_STARTS_MS,
  binOf,
  COMPLETION_BINS,
  type CompletionCounts,
  emptyCounts,
  finite,
  copyCounts,
} from '../../common/completion-bins';
import { InspectionCurve } from './inspection-curve';

/**
 * A provider's curve is made again once this many polls saw its sessions running since it was
 * made (a completion, or the store's totals, make it again at once). Made again at every poll,
 * it took about 3 % of a worker's main thread at many open verifications (bench:footprint),
 * and one poll's running time moves it little.
 */
const RUNNING_BEFORE_NEW_CURVE = 64;

/** Completions per provider: the counts, and their curve once enough were seen. */
export class CompletionTimes {
  /** Counts as last read from the shared store (every worker's). */
  #shared = new Map<string, CompletionCounts>();
  /** Counts seen here since they were last handed to the store. */
  #pending = new Map<string, CompletionCounts>();
  readonly #curves = new Map<string, InspectionCurve | null>();
  /** Running time seen per provider since its curve was made (see {@link RUNNING_BEFORE_NEW_CURVE}). */
  readonly #runningSince = new Map<string, number>();

  /**
   * A session of `provider` was seen running from age `fromMs` to `toMs` (ms after its
   * verification started); `completed`: it completed at `toMs`.
   */
  observe(provider: string, fromMs: number, toMs: number, completed: boolean): void {
    if (!(toMs >= fromMs && fromMs >= 0) || !Number.isFinite(toMs)) return;
    const counts = this.#pendingOf(provider);
    for (let k = binOf(fromMs); k < COMPLETION_BINS; k += 1) {
      const start = Math.max(fromMs, BIN_STARTS_MS[k] as number);
      const end = Math.min(toMs, BIN_STARTS_MS[k + 1] ?? Number.POSITIVE_INFINITY);
      if (end > start) counts.exposureMs[k] = (counts.exposureMs[k] ?? 0) + (end - start);
      if (end >= toMs) break;
    }
    if (completed) {
      const k = binOf(toMs);
      counts.events[k] = (counts.events[k] ?? 0) + 1;
    }
    const running = completed ? RUNNING_BEFORE_NEW_CURVE : (this.#runningSince.get(provider) ?? 0) + 1;
    if (running < RUNNING_BEFORE_NEW_CURVE) this.#runningSince.set(provider, running);
    else this.#forgetCurve(provider);
  }

  /** The provider's curve, or undefined while too few completions were seen (see {@link InspectionCurve.from}). */
  curve(provider: string): InspectionCurve | undefined {
    let curve = this.#curves.get(provider);
    if (curve === undefined) {
      const counts = emptyCounts();
      const shared = this.#shared.get(provider);
      const pending = this.#pending.get(provider);
      if (shared) addCounts(counts, shared);
      if (pending) addCounts(counts, pending);
      curve = InspectionCurve.from(counts) ?? null;
      this.#curves.set(provider, curve);
    }
    return curve ?? undefined;
  }

  /** Hands over what was seen since the last call (for the store); it counts here until {@link shared} replaces it. */
  takePending(): Map<string, CompletionCounts> {
    const pending = this.#pending;
    this.#pending = new Map();
    // Still counted until the store's totals (which include it) come back.
    for (const [provider, counts] of pending) addCounts(this.#sharedOf(provider), counts);
    return pending;
  }

  /** What was taken could not be stored: it is pending again. */
  putBack(taken: ReadonlyMap<string, CompletionCounts>): void {
    for (const [provider, counts] of taken) {
      addCounts(this.#pendingOf(provider), counts);
      const shared = this.#sharedOf(provider);
      for (let k = 0; k < COMPLETION_BINS; k += 1) {
        shared.events[k] = Math.max(0, (shared.events[k] ?? 0) - finite(counts.events[k]));
        shared.exposureMs[k] = Math.max(0, (shared.exposureMs[k] ?? 0) - finite(counts.exposureMs[k]));
      }
    }
  }

  /** The store's totals (every worker's, this one's handed counts included). */
  shared(totals: ReadonlyMap<string, CompletionCounts>): void {
    this.#shared = new Map([...totals].map(([provider, counts]) => [provider, copyCounts(counts)]));
    this.#curves.clear();
    this.#runningSince.clear();
  }

  #forgetCurve(provider: string): void {
    this.#curves.delete(provider);
    this.#runningSince.delete(provider);
  }

  #pendingOf(provider: string): CompletionCounts {
    let counts = this.#pending.get(provider);
    if (!counts) this.#pending.set(provider, (counts = emptyCounts()));
    return counts;
  }

  #sharedOf(provider: string): CompletionCounts {
    let counts = this.#shared.get(provider);
    if (!counts) this.#shared.set(provider, (counts = emptyCounts()));
    return counts;
  }
}
