import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { addCounts, type CompletionCounts, emptyCounts, copyCounts } from '../../common/completion-bins';
import { completionCountsSchema, type CompletionTimesStore } from '../completion-times-store';
import { readJsonFile, writeFileAtomic } from './atomic-file';

const fileSchema = z.record(z.string(), completionCountsSchema);

/**
 * {@link CompletionTimesStore} in a local directory: each process that opens the store writes
 * its own totals to a file of its own (`<uuid>.json`, rewritten whole), so that no two writers
 * race over one file; the totals are the sum of every file. A file that cannot be read counts
 * nothing.
 */
export class FileCompletionTimes implements CompletionTimesStore {
  #own = new Map<string, CompletionCounts>();
  readonly #file: string;
  /** One write at a time: each writes the whole of {@link #own}. */
  #writing: Promise<void> = Promise.resolve();

  constructor(private readonly directory: string) {
    this.#file = join(directory, `${randomUUID()}.json`);
  }

  add(counts: ReadonlyMap<string, CompletionCounts>): Promise<void> {
    const write = this.#writing.then(async () => {
      // Kept only once written: counts a failed write handed back are not counted twice.
      const next = new Map([...this.#own].map(([provider, own]) => [provider, copyCounts(own)]));
      for (const [provider, more] of counts) {
        let own = next.get(provider);
        if (!own) next.set(provider, (own = emptyCounts()));
        addCounts(own, more);
      }
      await writeFileAtomic(this.#file, JSON.stringify(Object.fromEntries(next)));
      this.#own = next;
    });
    this.#writing = write.catch(() => undefined);
    return write;
  }

  async read(): Promise<Map<string, CompletionCounts>> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      // Nothing written yet (the folder comes with the first write).
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw error;
    }
    const totals = new Map<string, CompletionCounts>();
    for (const name of names.filter((each) => each.endsWith('.json'))) {
      const parsed = fileSchema.safeParse(
        await readJsonFile(join(this.directory, name)).catch(() => undefined),
      );
      if (!parsed.success) continue;
      for (const [provider, counts] of Object.entries(parsed.data)) {
        let total = totals.get(provider);
        if (!total) totals.set(provider, (total = emptyCounts()));
        addCounts(total, counts);
      }
    }
    return totals;
  }
}
