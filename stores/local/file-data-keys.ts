import { randomUUID } from 'node:crypto';
import { link, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { checkKeyId, type DataKeyRecord, type DataKeyStore } from '../data-key-store';
import { readJsonFile, writeFileAtomic } from './atomic-file';

const recordSchema = z.union([
  z.object({ state: z.literal('live'), wrapped: z.string() }),
  z.object({ state: z.literal('destroyed'), destroyedAt: z.string() }),
]);

/** A {@link DataKeyStore} in a local directory: one owner-only file per key. */
export class FileDataKeyStore implements DataKeyStore {
  constructor(private readonly directory: string) {}

  async create(keyId: string, wrapped: string): Promise<boolean> {
    const file = this.#file(keyId);
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${randomUUID()}.tmp`;
    const record: DataKeyRecord = { state: 'live', wrapped };
    await writeFile(temporary, JSON.stringify(record), { mode: 0o600, flush: true });
    try {
      // A hard link appears whole and fails when the id exists: never overwritten, never half-written.
      await link(temporary, file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      await rm(temporary, { force: true });
    }
  }

  async get(keyId: string): Promise<DataKeyRecord | undefined> {
    const parsed = recordSchema.safeParse(await readJsonFile(this.#file(keyId)));
    return parsed.success ? parsed.data : undefined;
  }

  async destroy(keyId: string): Promise<boolean> {
    const record = await this.get(keyId);
    if (!record) return false;
    if (record.state === 'destroyed') return true;
    const tombstone: DataKeyRecord = { state: 'destroyed', destroyedAt: new Date().toISOString() };
    await writeFileAtomic(this.#file(keyId), JSON.stringify(tombstone));
    await this.#removeLeftovers(keyId);
    return true;
  }

  /** Temporary files a crashed `create` left beside the key (they hold it wrapped). */
  async #removeLeftovers(keyId: string): Promise<void> {
    const prefix = `${checkKeyId(keyId)}.json.`;
    const names = await readdir(this.directory).catch(() => [] as string[]);
    for (const name of names)
      if (name.startsWith(prefix) && name.endsWith('.tmp'))
        await rm(join(this.directory, name), { force: true });
  }

  #file(keyId: string): string {
    return join(this.directory, `${checkKeyId(keyId)}.json`);
  }
}
