/** Completion ages are counted in this many bins: the first up to 1 s, the last from 24 h on. */
export const COMPLETION_BINS = 48;
const FIRST_EDGE_MS = 1_000;
const LAST_EDGE_MS = 24 * 3_600_000;
const RATIO = (LAST_EDGE_MS / FIRST_EDGE_MS) ** (1 / (COMPLETION_BINS - 2));

/**
 * Where each bin starts (ms after the verification started): 0, then 1 s growing by a constant
 * ratio to 24 h, so that a short and a long distribution are resolved alike (log-spaced).
 */
export const BIN_STARTS_MS: readonly number[] = Array.from({ length: COMPLETION_BINS }, (_, k) =>
  k === 0 ? 0 : FIRST_EDGE_MS * RATIO ** (k - 1),
);

/** The bin an age falls in. */
export function binOf(ageMs: number): number {
  if (!(ageMs >= FIRST_EDGE_MS)) return 0;
  return Math.min(COMPLETION_BINS - 1, 1 + Math.floor(Math.log(ageMs / FIRST_EDGE_MS) / Math.log(RATIO)));
}

/**
 * What was seen of one provider's sessions, per bin: completions seen, and the time sessions
 * spent running at those ages (exposure). Their ratio is the completion rate at that age (the
 * hazard), which stays right when sessions leave before completing (cancelled, timed out, ended
 * by a redirect check, or still running): they count the time they were seen running, no
 * completion. Never a session, a person or a time of day: counts only.
 */
export interface CompletionCounts {
  events: number[];
  exposureMs: number[];
}

/** No counts yet. */
export function emptyCounts(): CompletionCounts {
  return {
    events: new Array<number>(COMPLETION_BINS).fill(0),
    exposureMs: new Array<number>(COMPLETION_BINS).fill(0),
  };
}

/** Adds `more` into `into` (bin by bin; missing or non-finite values count 0). */
export function addCounts(into: CompletionCounts, more: CompletionCounts): void {
  for (let k = 0; k < COMPLETION_BINS; k += 1) {
    into.events[k] = (into.events[k] ?? 0) + finite(more.events[k]);
    into.exposureMs[k] = (into.exposureMs[k] ?? 0) + finite(more.exposureMs[k]);
  }
}

/** A count as added: missing, negative or non-finite values are 0. */
export function finite(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : 0;
}

/** A copy of `counts`, to add to without changing them. */
export function copyCounts(counts: CompletionCounts): CompletionCounts {
  const copy = emptyCounts();
  addCounts(copy, counts);
  return copy;
}
