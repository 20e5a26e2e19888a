import { type Pool } from 'pg';
import { COMPLETION_BINS, type CompletionCounts, emptyCounts } from '../../common/completion-bins';
import { type CompletionTimesStore } from '../completion-times-store';

/** {@link CompletionTimesStore} in PostgreSQL: one row per provider and bin, added to in place. */
export class PgCompletionTimes implements CompletionTimesStore {
  constructor(private readonly pool: Pool) {}

  async add(counts: ReadonlyMap<string, CompletionCounts>): Promise<void> {
    const providers: string[] = [];
    const bins: number[] = [];
    const events: number[] = [];
    const exposures: number[] = [];
    // Rows in one order for every worker: two upserts never wait for each other's rows crosswise.
    for (const [provider, each] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      for (let bin = 0; bin < COMPLETION_BINS; bin += 1) {
        const completed = each.events[bin] ?? 0;
        const exposureMs = each.exposureMs[bin] ?? 0;
        if (!(completed > 0 || exposureMs > 0)) continue;
        providers.push(provider);
        bins.push(bin);
        events.push(completed);
        exposures.push(exposureMs);
      }
    if (providers.length === 0) return;
    await this.pool.query(
      `INSERT INTO idv_completion_times AS t (provider, bin, events, exposure_ms)
       SELECT * FROM unnest($1::text[], $2::integer[], $3::float8[], $4::float8[])
       ON CONFLICT (provider, bin) DO UPDATE
         SET events = t.events + excluded.events, exposure_ms = t.exposure_ms + excluded.exposure_ms`,
      [providers, bins, events, exposures],
    );
  }

  async read(): Promise<Map<string, CompletionCounts>> {
    const { rows } = await this.pool.query<{
      provider: string;
      bin: number;
      events: number;
      exposure_ms: number;
    }>('SELECT provider, bin, events, exposure_ms FROM idv_completion_times');
    const totals = new Map<string, CompletionCounts>();
    for (const row of rows) {
      if (!(row.bin >= 0 && row.bin < COMPLETION_BINS)) continue;
      let counts = totals.get(row.provider);
      if (!counts) totals.set(row.provider, (counts = emptyCounts()));
      counts.events[row.bin] = Number(row.events);
      counts.exposureMs[row.bin] = Number(row.exposure_ms);
    }
    return totals;
  }
}
