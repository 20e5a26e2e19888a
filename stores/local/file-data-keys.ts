import { readdir, rm } from 'node:fs/promises';
import { lock } from 'proper-lockfile';
import { join } from 'node:path';
import { z } from 'zod';
import { checkKeyId, type DataKeyRecord, type DataKeyStore } from '../data-key-store';
import {
  createFileExclusive,
  makeFolderDurably,
  readJsonFile,
  syncFolder,
  writeFileAtomic,
} from './atomic-file';

const liveSchema = z.object({ state: z.literal('live'), wrapped: z.string() });
const tombstoneSchema = z.object({ destroyedAt: z.string() });

/**
 * A {@link DataKeyStore} in a local directory: a live key is `<id>.json`, a destroyed one
 * `<id>.destroyed` (created once, never removed), which wins over any live file beside it. A
 * re-wrap and a destruction take the key's lock, so a re-wrap is a compare-and-set that never
 * brings a key back. Every write is synced with its folder.
 */
export class FileDataKeyStore implements DataKeyStore {
  constructor(private readonly directory: string) {}

  async create(keyId: string, wrapped: string): Promise<boolean> {
    if (await this.#tombstone(keyId)) return false;
    const record: DataKeyRecord = { state: 'live', wrapped };
    // Created whole and only once (a hard link fails when the id exists): never overwritten.
    return await createFileExclusive(this.#live(keyId), JSON.stringify(record));
  }

  async get(keyId: string): Promise<DataKeyRecord | undefined> {
    const tombstone = await this.#tombstone(keyId);
    if (tombstone) return { state: 'destroyed', destroyedAt: tombstone.destroyedAt };
    const parsed = liveSchema.safeParse(await readJsonFile(this.#live(keyId)));
    return parsed.success ? parsed.data : undefined;
  }

  async destroy(keyId: string): Promise<boolean> {
    return await this.#locked(keyId, async () => {
      if (!(await this.get(keyId))) return false;
      await createFileExclusive(this.#dead(keyId), JSON.stringify({ destroyedAt: new Date().toISOString() }));
      await this.#removeLive(keyId);
      return true;
    });
  }

  async rewrap(keyId: string, from: string, to: string): Promise<boolean> {
    // A compare-and-set: under the key's lock, which a destruction takes too.
    return await this.#locked(keyId, async () => {
      const record = await this.get(keyId);
      if (record?.state !== 'live' || record.wrapped !== from) return false;
      await writeFileAtomic(this.#live(keyId), JSON.stringify({ state: 'live', wrapped: to }));
      return true;
    });
  }

  /** Runs `work` holding the key's lock (a lock folder beside it; one taken by a process that died goes stale in 10 s). */
  async #locked<T>(keyId: string, work: () => Promise<T>): Promise<T> {
    await makeFolderDurably(this.directory);
    const release = await lock(this.#live(keyId), {
      realpath: false,
      lockfilePath: join(this.directory, `${checkKeyId(keyId)}.lock`),
      stale: 10_000,
      retries: { retries: 100, minTimeout: 10, maxTimeout: 200 },
    });
    try {
      return await work();
    } finally {
      await release();
    }
  }

  async wrappedElsewhere(
    kekId: string,
    options: { after?: string; limit: number },
  ): Promise<Array<{ keyId: string; wrapped: string }>> {
    const names = await readdir(this.directory).catch(() => [] as string[]);
    const ids = names
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .map((name) => name.slice(0, -'.json'.length))
      .filter((id) => options.after === undefined || id > options.after)
      .sort();
    const found: Array<{ keyId: string; wrapped: string }> = [];
    for (const keyId of ids) {
      if (found.length >= options.limit) break;
      const record = await this.get(keyId);
      if (record?.state === 'live' && !record.wrapped.startsWith(`${kekId}:`))
        found.push({ keyId, wrapped: record.wrapped });
    }
    return found;
  }

  async #tombstone(keyId: string): Promise<z.infer<typeof tombstoneSchema> | undefined> {
    const parsed = tombstoneSchema.safeParse(await readJsonFile(this.#dead(keyId)));
    return parsed.success ? parsed.data : undefined;
  }

  /** The live file and any temporary file a crashed write left beside it (they hold the key wrapped). */
  async #removeLive(keyId: string): Promise<void> {
    const prefix = `${checkKeyId(keyId)}.json`;
    const names = await readdir(this.directory).catch(() => [] as string[]);
    for (const name of names)
      if (name === prefix || (name.startsWith(`${prefix}.`) && name.endsWith('.tmp')))
        await rm(join(this.directory, name), { force: true });
    await syncFolder(this.directory);
  }

  #live(keyId: string): string {
    return join(this.directory, `${checkKeyId(keyId)}.json`);
  }

  #dead(keyId: string): string {
    return join(this.directory, `${checkKeyId(keyId)}.destroyed`);
  }
}
