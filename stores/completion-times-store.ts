import { z } from 'zod';
import { COMPLETION_BINS, type CompletionCounts } from '../common/completion-bins';

/**
 * Where every worker's counts of completion times meet (see `CompletionCounts`), so that each
 * worker places its polls from what all of them saw: per provider, per bin, the completions and
 * the time spent running. Counts only: no session, person or time of day.
 */
export interface CompletionTimesStore {
  /** Adds `counts` to each provider's totals. */
  add(counts: ReadonlyMap<string, CompletionCounts>): Promise<void>;
  /** Every provider's totals. */
  read(): Promise<Map<string, CompletionCounts>>;
}

/** Counts as stored (the bins' arrays, each as long as there are bins). */
export const completionCountsSchema = z.object({
  events: z.array(z.number().nonnegative()).length(COMPLETION_BINS),
  exposureMs: z.array(z.number().nonnegative()).length(COMPLETION_BINS),
});
