import { z } from 'zod';

/** A verification's state as its record tells it: started, then how it ended. */
export const recordStatuses = ['started', 'succeeded', 'failed', 'cancelled', 'timed-out'] as const;
export type RecordStatus = (typeof recordStatuses)[number];

/**
 * What the store keeps of a verification for as long as the business keeps it, past Temporal's
 * retention: enough to keep its reference unique, to erase its data by reference, and to prove
 * what happened and when. Never the person's data: ids, names of the profile and provider,
 * statuses, error codes and times.
 */
export const verificationRecordSchema = z.object({
  reference: z.string(),
  verificationProfileId: z.string(),
  provider: z.string(),
  /** The verification's data key (destroyed by its redaction). */
  dataKeyId: z.string(),
  sessionId: z.string().optional(),
  status: z.enum(recordStatuses),
  errorCode: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  /** When its data is due to be erased; absent while it runs, or when it is kept (`redactAfter: never`). */
  redactionDueAt: z.string().optional(),
  /** When its data was erased (its data key destroyed, stored data deleted, redacted at the service). */
  redactedAt: z.string().optional(),
  /**
   * The data keys of other starts under the reference: a start taken over (its verification never
   * reached Temporal, as far as the taker could tell) or one that lost to the verification that
   * ran. Their sealed input may sit in a caller's history; the verification's redaction destroys
   * them with its own key. Absent when there are none.
   */
  supersededKeyIds: z.array(z.string()).optional(),
});
export type VerificationRecord = z.infer<typeof verificationRecordSchema>;

/**
 * How a verification ended, as its clean-up records it; with what a record needs when its start
 * made none (a verification started without `IdvClient`).
 */
export type RecordedEnding = Omit<VerificationRecord, 'reference' | 'redactedAt' | 'status'> & {
  status: Exclude<RecordStatus, 'started'>;
  endedAt: string;
};

/** Which records {@link VerificationRecords.list} answers, oldest start first. */
export interface RecordFilter {
  status?: RecordStatus;
  verificationProfileId?: string;
  provider?: string;
  /** Started at or after (ISO time). */
  startedFrom?: string;
  /** Started before (ISO time). */
  startedBefore?: string;
  /** `done`: erased; `due`: due and not erased yet; `kept`: ended, kept without a due time. */
  redaction?: 'done' | 'due' | 'kept';
  /** The reference to list after (the last one of the previous page). */
  after?: string;
  limit: number;
}

/** Thrown when a reference is not one a record can be kept under. */
export class RecordReferenceError extends Error {
  override readonly name = 'RecordReferenceError';
}

/**
 * Thrown when a reference's record kept changing under a write, past a bound (other starts taking
 * it over, or its purge and a new start, landing between this write's reads and writes). Under a
 * start nothing ran; its caller destroys the data key it made, and the start can be made again.
 * Under an ending or an erasure nothing was recorded, and the write can be made again.
 */
export class RecordContendedError extends Error {
  override readonly name = 'RecordContendedError';
}

/** The verification records of a deployment, one per reference, in the shared store. */
export interface VerificationRecords {
  /** Keeps `record` unless its reference has one; resolves to the record the reference has then. */
  reserve(record: VerificationRecord): Promise<{ created: boolean; record: VerificationRecord }>;
  get(reference: string): Promise<VerificationRecord | undefined>;
  /**
   * A start under a reference whose earlier start never ran: its data key and start time. False
   * when the record has ended or its data was erased meanwhile (nothing taken over).
   */
  restarted(reference: string, start: Pick<VerificationRecord, 'dataKeyId' | 'startedAt'>): Promise<boolean>;
  /**
   * Records the ending (the first one recorded stays), making the record if the start made none.
   * An ending that does not belong to the record ({@link endingBelongs}) is not recorded.
   */
  ended(reference: string, ending: RecordedEnding): Promise<void>;
  /**
   * Records the erasure of the verification's data (the first time stays): of the verification
   * whose data key is `dataKeyId`, only when the record names it (a late erasure of a verification
   * whose record was purged since, the reference started anew, is not this record's); without
   * it, of the reference's.
   */
  redacted(reference: string, redactedAt: string, dataKeyId?: string): Promise<void>;
  /** Records matching `filter`, in reference order after `filter.after`. */
  list(filter: RecordFilter): Promise<VerificationRecord[]>;
  /**
   * Removes the records of verifications erased before `erasedBefore`, one by one; resolves to
   * their references. `beforeRemoving` runs for each before its record goes: should it fail, the
   * purge stops there and the record stays, for a later purge to take.
   */
  purge(erasedBefore: string, beforeRemoving?: (reference: string) => Promise<void>): Promise<string[]>;
}

const REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/** Refuses a reference that could not name a record (a file name) or is unbounded. */
export function checkReference(reference: string): string {
  if (typeof reference !== 'string' || !REFERENCE.test(reference))
    throw new RecordReferenceError(`not a verification reference: ${JSON.stringify(reference).slice(0, 80)}`);
  return reference;
}

/** Whether a record passes a filter (the directory store filters in memory). */
export function recordMatches(record: VerificationRecord, filter: RecordFilter, nowIso: string): boolean {
  if (filter.status && record.status !== filter.status) return false;
  if (filter.verificationProfileId && record.verificationProfileId !== filter.verificationProfileId)
    return false;
  if (filter.provider && record.provider !== filter.provider) return false;
  if (filter.startedFrom && record.startedAt < filter.startedFrom) return false;
  if (filter.startedBefore && record.startedAt >= filter.startedBefore) return false;
  if (filter.redaction === 'done' && !record.redactedAt) return false;
  if (
    filter.redaction === 'due' &&
    (record.redactedAt || !record.redactionDueAt || record.redactionDueAt > nowIso)
  )
    return false;
  if (
    filter.redaction === 'kept' &&
    (record.redactedAt || record.status === 'started' || record.redactionDueAt)
  )
    return false;
  if (filter.after && record.reference <= filter.after) return false;
  return true;
}

/**
 * Whether an ending is the verification of the record its reference has: one whose data key the
 * record names (its start's, or one it took over or lost to), or one that ended after the record's
 * start (a verification started without `IdvClient` alongside a start of the same reference). One
 * that ended before the start, under a key the record never named, is an earlier verification's
 * of the reference, whose record was erased and purged since: an attempt of its clean-up landing
 * late, which would otherwise end the running one's record with another session and key.
 */
export function endingBelongs(
  record: Pick<VerificationRecord, 'dataKeyId' | 'supersededKeyIds' | 'startedAt'>,
  ending: Pick<RecordedEnding, 'dataKeyId' | 'endedAt'>,
): boolean {
  return (
    recordNamesKey(record, ending.dataKeyId) || Date.parse(ending.endedAt) >= Date.parse(record.startedAt)
  );
}

/** Whether a record names a data key: its verification's, or one of another start under it. */
export function recordNamesKey(
  record: Pick<VerificationRecord, 'dataKeyId' | 'supersededKeyIds'>,
  keyId: string,
): boolean {
  return record.dataKeyId === keyId || (record.supersededKeyIds ?? []).includes(keyId);
}

/** Whether a recorded erasure is of the record's verification: one naming no key is the reference's. */
export function erasureBelongs(
  record: Pick<VerificationRecord, 'dataKeyId' | 'supersededKeyIds'>,
  erasure: { dataKeyId?: string | undefined },
): boolean {
  return erasure.dataKeyId === undefined || recordNamesKey(record, erasure.dataKeyId);
}

/**
 * The keys a reference named other than `dataKeyId` (its verification's), each once: what a
 * record keeps as `supersededKeyIds` (absent when none).
 */
export function supersededKeys(
  named: readonly (string | undefined)[],
  dataKeyId: string,
): Pick<VerificationRecord, 'supersededKeyIds'> {
  const keys = [...new Set(named)].filter((key): key is string => key !== undefined && key !== dataKeyId);
  return keys.length > 0 ? { supersededKeyIds: keys } : {};
}
