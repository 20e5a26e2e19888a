import { BIN_STARTS_MS, binOf, COMPLETION_BINS, type CompletionCounts } from '../../common/completion-bins';

/** A provider's polls are placed by its curve once this many of its completions were seen. */
export const MIN_COMPLETIONS = 20;
/**
 * Each bin's completion rate leans toward the provider's overall rate as if it had seen this
 * many completions more at that rate: a bin seen little is neither empty nor certain.
 */
const PRIOR_COMPLETIONS = 0.5;

/**
 * Where a provider's completions are likely, as the square root of its completion rate (hazard)
 * at each age. Polls placed with a density proportional to it (Keller's optimal checking
 * density, sqrt(h(t) / 2c), for a cost c per check) make the least mean delay between a
 * completion and the poll that sees it for a given number of polls; see docs/architecture.md.
 */
export class InspectionCurve {
  /** sqrt(completions per ms of running) per bin. */
  readonly #roots: readonly number[];

  private constructor(roots: readonly number[]) {
    this.#roots = roots;
  }

  /** The curve of these counts, or undefined while fewer than {@link MIN_COMPLETIONS} completions were seen. */
  static from(counts: CompletionCounts): InspectionCurve | undefined {
    const completions = sum(counts.events);
    const exposureMs = sum(counts.exposureMs);
    if (completions < MIN_COMPLETIONS || !(exposureMs > 0)) return undefined;
    const overall = completions / exposureMs;
    const roots = Array.from({ length: COMPLETION_BINS }, (_, k) =>
      Math.sqrt(
        ((counts.events[k] ?? 0) + PRIOR_COMPLETIONS) /
          ((counts.exposureMs[k] ?? 0) + PRIOR_COMPLETIONS / overall),
      ),
    );
    return new InspectionCurve(roots);
  }

  /** The density's weight at an age: sqrt of the completion rate there. */
  weight(ageMs: number): number {
    return this.#roots[binOf(ageMs)] as number;
  }

  /** The age after `ageMs` by which the curve's measure (the integral of {@link weight}) has grown by `step`. */
  ageAfter(ageMs: number, step: number): number {
    let at = Math.max(0, ageMs);
    let left = step;
    for (let k = binOf(at); k < COMPLETION_BINS; k += 1) {
      const root = this.#roots[k] as number;
      const end = BIN_STARTS_MS[k + 1] ?? Number.POSITIVE_INFINITY;
      const room = (end - at) * root;
      if (room >= left) return at + left / root;
      left -= room;
      at = end;
    }
    return Number.POSITIVE_INFINITY;
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + (Number.isFinite(value) && value > 0 ? value : 0), 0);
}
