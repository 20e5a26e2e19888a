import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  checkReference,
  type RecordedEnding,
  type RecordFilter,
  recordMatches,
  supersededKeys,
  type VerificationRecord,
  verificationRecordSchema,
  type VerificationRecords,
} from '../verification-records';
import {
  createFileExclusive,
  readJsonFile,
  removeFileDurably,
  syncFolder,
  writeFileAtomic,
} from './atomic-file';

const endingSchema = verificationRecordSchema.pick({
  status: true,
  errorCode: true,
  sessionId: true,
  endedAt: true,
  redactionDueAt: true,
  dataKeyId: true,
});
const startSchema = verificationRecordSchema.pick({
  reference: true,
  verificationProfileId: true,
  provider: true,
  dataKeyId: true,
  startedAt: true,
});
const erasureSchema = z.object({ redactedAt: z.string() });

type Fact = 'started' | 'ended' | 'redacted';

/**
 * {@link VerificationRecords} in a local directory. Each fact is a file of its own, created once
 * and never rewritten (but a restart's): `started/<reference>.json`, `ended/<reference>.json`,
 * `redacted/<reference>.json`; so writers never race over one file, and the first ending recorded
 * stays. Every write is synced with its folder.
 */
export class FileVerificationRecords implements VerificationRecords {
  constructor(private readonly directory: string) {}

  async reserve(record: VerificationRecord): Promise<{ created: boolean; record: VerificationRecord }> {
    const reference = checkReference(record.reference);
    const start = verificationRecordSchema.parse({ ...record, status: 'started' });
    const created = await createFileExclusive(this.#file('started', reference), JSON.stringify(start));
    return { created, record: created ? start : ((await this.get(reference)) ?? start) };
  }

  async get(reference: string): Promise<VerificationRecord | undefined> {
    const start = await this.#start(checkReference(reference));
    if (!start) return undefined;
    const ending = endingSchema.safeParse(await readJsonFile(this.#file('ended', reference)));
    const erasure = erasureSchema.safeParse(await readJsonFile(this.#file('redacted', reference)));
    const { supersededKeyIds, ...started } = start;
    const record = {
      ...started,
      ...(ending.success ? stripUndefined(ending.data) : {}),
      ...(erasure.success ? erasure.data : {}),
    };
    // An ending under another key than the start's: that start lost to the verification that ran.
    return { ...record, ...supersededKeys([...(supersededKeyIds ?? []), start.dataKeyId], record.dataKeyId) };
  }

  async restarted(
    reference: string,
    start: Pick<VerificationRecord, 'dataKeyId' | 'startedAt'>,
  ): Promise<boolean> {
    const record = await this.#start(checkReference(reference));
    const closed =
      (await readJsonFile(this.#file('ended', reference))) ||
      (await readJsonFile(this.#file('redacted', reference)));
    if (!record || closed) return false;
    await writeFileAtomic(
      this.#file('started', reference),
      JSON.stringify({
        ...record,
        ...start,
        ...supersededKeys([...(record.supersededKeyIds ?? []), record.dataKeyId], start.dataKeyId),
      }),
    );
    return true;
  }

  async ended(reference: string, ending: RecordedEnding): Promise<void> {
    if (!(await this.#start(checkReference(reference)))) {
      const start = startSchema.parse({ ...ending, reference });
      await createFileExclusive(
        this.#file('started', reference),
        JSON.stringify({ ...start, status: 'started' }),
      );
    }
    await createFileExclusive(this.#file('ended', reference), JSON.stringify(endingSchema.parse(ending)));
  }

  async redacted(reference: string, redactedAt: string): Promise<void> {
    if (!(await this.#start(checkReference(reference)))) return;
    await createFileExclusive(this.#file('redacted', reference), JSON.stringify({ redactedAt }));
  }

  async list(filter: RecordFilter): Promise<VerificationRecord[]> {
    const now = new Date().toISOString();
    const found: VerificationRecord[] = [];
    for (const reference of await this.#references()) {
      if (found.length >= filter.limit) break;
      const record = await this.get(reference);
      if (record && recordMatches(record, filter, now)) found.push(record);
    }
    return found;
  }

  async purge(erasedBefore: string): Promise<string[]> {
    const purged: string[] = [];
    for (const reference of await this.#references()) {
      const record = await this.get(reference);
      if (!record?.redactedAt || record.redactedAt >= erasedBefore) continue;
      // The start goes last: a purge cut short leaves a record that still holds its reference.
      await this.#removeFacts(reference);
      await removeFileDurably(this.#file('started', reference));
      purged.push(reference);
    }
    return purged;
  }

  async #start(reference: string): Promise<VerificationRecord | undefined> {
    const parsed = verificationRecordSchema.safeParse(await readJsonFile(this.#file('started', reference)));
    return parsed.success ? parsed.data : undefined;
  }

  async #removeFacts(reference: string): Promise<void> {
    await rm(this.#file('ended', reference), { force: true });
    await rm(this.#file('redacted', reference), { force: true });
    for (const fact of ['ended', 'redacted'] as const)
      await syncFolder(join(this.directory, fact)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
  }

  /** Every reference with a start, in order. */
  async #references(): Promise<string[]> {
    const names = await readdir(join(this.directory, 'started')).catch(() => [] as string[]);
    return names
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  }

  #file(fact: Fact, reference: string): string {
    return join(this.directory, fact, `${reference}.json`);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
