import { randomUUID } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { z } from 'zod';
import {
  checkReference,
  endingBelongs,
  erasureBelongs,
  type RecordedEnding,
  recordNamesKey,
  type RecordFilter,
  RecordContendedError,
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
  syncFolderIfPresent,
} from './atomic-file';

const endingSchema = verificationRecordSchema
  .pick({
    status: true,
    errorCode: true,
    sessionId: true,
    endedAt: true,
    redactionDueAt: true,
    dataKeyId: true,
  })
  .required({ endedAt: true });
const startSchema = verificationRecordSchema.pick({
  reference: true,
  verificationProfileId: true,
  provider: true,
  dataKeyId: true,
  startedAt: true,
});
/** An erasure names the key of the verification erased (files of earlier releases name none). */
const erasureSchema = z.object({ redactedAt: z.string(), dataKeyId: z.string().optional() });
/** A take-over names the key of the start it took over: a purged record's is not a new start's. */
const restartSchema = verificationRecordSchema
  .pick({ dataKeyId: true, startedAt: true })
  .extend({ over: z.string() });
/** A take-over's file in `restarted/<reference>/`: its place in the order the take-overs landed. */
const RESTART_FILE = /^([1-9][0-9]{0,8})\.json$/;
/** Facts of one reference racing a left-behind one out: each lost race means another landed. */
const FACT_TRIES = 3;
/** Take-overs of one reference racing for the next number: each lost race means another landed. */
const RESTART_TRIES = 100;

type Fact = 'started' | 'ended' | 'redacted';

/**
 * {@link VerificationRecords} in a local directory. Each fact is a file of its own, created once
 * and never rewritten: `started/<reference>.json`, `restarted/<reference>/<n>.json` (the n-th
 * take-over of the start), `ended/<reference>.json`, `redacted/<reference>.json`; so writers never
 * race over one file, no take-over hides another's key, and the first ending recorded stays. Every
 * write is synced with its folder.
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
    const record = await this.#unerased(checkReference(reference));
    if (!record) return undefined;
    const erasure = erasureSchema.safeParse(await readJsonFile(this.#file('redacted', reference)));
    return erasure.success && erasureBelongs(record, erasure.data)
      ? { ...record, redactedAt: erasure.data.redactedAt }
      : record;
  }

  /** The record before its erasure: its starts, and its own ending if recorded. */
  async #unerased(reference: string): Promise<VerificationRecord | undefined> {
    const started = await this.#started(reference);
    if (!started) return undefined;
    const ending = endingSchema.safeParse(await readJsonFile(this.#file('ended', reference)));
    // An ending of an earlier verification of the reference, left by its record's purge, is not
    // this start's.
    const own = ending.success && endingBelongs(started, ending.data) ? stripUndefined(ending.data) : {};
    const record = { ...started, ...own };
    // Every start but the one that ran (the ending's key), or the last one taken over, lost.
    const keys = [started.dataKeyId, ...(started.supersededKeyIds ?? [])];
    return { ...record, ...supersededKeys(keys, record.dataKeyId) };
  }

  /**
   * The record as its starts tell it, before any ending: the start that stands (the last one
   * taken over, or the first) and every other key the reference named.
   */
  async #started(reference: string): Promise<VerificationRecord | undefined> {
    const start = await this.#start(reference);
    if (!start) return undefined;
    const restarts = await this.#restarts(reference, start.dataKeyId);
    const standing = restarts.at(-1);
    // A store written before take-overs had files of their own rewrote the start, naming the keys
    // it replaced in `supersededKeyIds`.
    const { supersededKeyIds, ...first } = start;
    const record = {
      ...first,
      ...(standing ? { dataKeyId: standing.dataKeyId, startedAt: standing.startedAt } : {}),
    };
    const keys = [
      ...(supersededKeyIds ?? []),
      start.dataKeyId,
      ...restarts.map((restart) => restart.dataKeyId),
    ];
    return { ...record, ...supersededKeys(keys, record.dataKeyId) };
  }

  async restarted(
    reference: string,
    start: Pick<VerificationRecord, 'dataKeyId' | 'startedAt'>,
  ): Promise<boolean> {
    const record = await this.#start(checkReference(reference));
    const current = await this.get(reference);
    // Ended by its own verification, or erased (not by facts a purge left behind); a fact this
    // build cannot read (a later release's) closes it too.
    if (!record || !current || current.status !== 'started' || current.redactedAt !== undefined) return false;
    for (const [fact, schema] of [
      ['ended', endingSchema],
      ['redacted', erasureSchema],
    ] as const) {
      const recorded = await readJsonFile(this.#file(fact, reference));
      if (recorded !== undefined && !schema.safeParse(recorded).success) return false;
    }
    const content = JSON.stringify(restartSchema.parse({ ...start, over: record.dataKeyId }));
    for (let tries = 0; tries < RESTART_TRIES; tries += 1) {
      const next = ((await this.#restartNumbers(reference)).at(-1) ?? 0) + 1;
      if (await createFileExclusive(join(this.#restartFolder(reference), `${next}.json`), content)) {
        // Another take-over may have made the reference's folder and not synced it into its
        // parent yet (its maker does): this one's key is named for good only once it is.
        await syncFolder(join(this.directory, 'restarted'));
        return true;
      }
    }
    throw new RecordContendedError(
      `could not record a take-over of ${reference}: ${RESTART_TRIES} others landed meanwhile`,
    );
  }

  async ended(reference: string, ending: RecordedEnding): Promise<void> {
    let started = await this.#started(checkReference(reference));
    if (!started) {
      const start = startSchema.parse({ ...ending, reference });
      const made = await createFileExclusive(
        this.#file('started', reference),
        JSON.stringify({ ...start, status: 'started' }),
      );
      // A start made meanwhile (a new verification of the reference): the ending must be its.
      if (!made) started = await this.#started(reference);
    }
    if (started && !endingBelongs(started, ending)) return;
    await this.#createFact(this.#file('ended', reference), endingSchema.parse(ending), {
      schema: endingSchema,
      current: () => this.#started(reference),
      belongs: endingBelongs,
    });
  }

  async redacted(reference: string, redactedAt: string, dataKeyId?: string): Promise<void> {
    const record = await this.#unerased(checkReference(reference));
    if (!record || (dataKeyId !== undefined && !recordNamesKey(record, dataKeyId))) return;
    await this.#createFact(
      this.#file('redacted', reference),
      { redactedAt, ...(dataKeyId !== undefined ? { dataKeyId } : {}) },
      { schema: erasureSchema, current: () => this.#unerased(reference), belongs: erasureBelongs },
    );
  }

  /**
   * Creates a fact's file once: the first recorded stays, unless it does not belong to the
   * reference's record now (an earlier verification's, landed while its record was purged and
   * left behind). Only one found not to belong once moved aside is dropped: one that belongs, put
   * there meanwhile, goes back. Past {@link FACT_TRIES} lost races it throws
   * {@link RecordContendedError}, for its caller's retry.
   */
  async #createFact<T>(
    path: string,
    fact: T,
    rule: {
      schema: z.ZodType<T>;
      current: () => Promise<VerificationRecord | undefined>;
      belongs: (record: VerificationRecord, fact: T) => boolean;
    },
  ): Promise<void> {
    // One that cannot be read (a later release's) or with no record to weigh it against stays.
    const belongs = async (recorded: unknown): Promise<boolean> => {
      const parsed = rule.schema.safeParse(recorded);
      const current = await rule.current();
      return !current || !parsed.success || rule.belongs(current, parsed.data);
    };
    for (let tries = 0; tries < FACT_TRIES; tries += 1) {
      if (await createFileExclusive(path, JSON.stringify(fact))) return;
      const recorded = await readJsonFile(path);
      if (recorded !== undefined && (await belongs(recorded))) return;
      const aside = `${path}.${randomUUID()}.tmp`;
      if (!(await renameUnlessGone(path, aside))) continue;
      const moved = await readJsonFile(aside);
      const putBack = moved !== undefined && (await belongs(moved));
      if (putBack) await createFileExclusive(path, JSON.stringify(moved));
      await removeFileDurably(aside);
      if (putBack) return;
    }
    throw new RecordContendedError(
      `could not record ${relative(this.directory, path)}: ${FACT_TRIES} others landed meanwhile`,
    );
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

  async purge(
    erasedBefore: string,
    beforeRemoving?: (reference: string) => Promise<void>,
  ): Promise<string[]> {
    const purged: string[] = [];
    for (const reference of await this.#references()) {
      const record = await this.get(reference);
      if (!record?.redactedAt || record.redactedAt >= erasedBefore) continue;
      await beforeRemoving?.(reference);
      // The start goes last: a purge cut short leaves a record that still holds its reference
      // (alone, a start a new one takes over: its creation is forgotten and its key destroyed).
      await this.#removeFacts(reference);
      await rm(this.#restartFolder(reference), { recursive: true, force: true });
      await syncFolderIfPresent(join(this.directory, 'restarted'));
      await removeFileDurably(this.#file('started', reference));
      purged.push(reference);
    }
    return purged;
  }

  async #start(reference: string): Promise<VerificationRecord | undefined> {
    const parsed = verificationRecordSchema.safeParse(await readJsonFile(this.#file('started', reference)));
    return parsed.success ? parsed.data : undefined;
  }

  /** The take-overs of the start made under `startKeyId`, in the order they landed. */
  async #restarts(reference: string, startKeyId: string): Promise<Array<z.infer<typeof restartSchema>>> {
    const restarts = [];
    for (const n of await this.#restartNumbers(reference)) {
      const parsed = restartSchema.safeParse(
        await readJsonFile(join(this.#restartFolder(reference), `${n}.json`)),
      );
      if (parsed.success && parsed.data.over === startKeyId) restarts.push(parsed.data);
    }
    return restarts;
  }

  async #restartNumbers(reference: string): Promise<number[]> {
    const names = await readdir(this.#restartFolder(reference)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    return names
      .map((name) => RESTART_FILE.exec(name)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  #restartFolder(reference: string): string {
    return join(this.directory, 'restarted', reference);
  }

  async #removeFacts(reference: string): Promise<void> {
    await rm(this.#file('ended', reference), { force: true });
    await rm(this.#file('redacted', reference), { force: true });
    for (const fact of ['ended', 'redacted'] as const) await syncFolderIfPresent(join(this.directory, fact));
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

/** Renames a file; false when it is not there (moved or removed meanwhile). */
async function renameUnlessGone(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
