import { type DataKeys } from '../../codec/data-keys';
import { type IdvStore } from '../../stores/idv-store';
import {
  recordNamesKey,
  type VerificationRecord,
  type VerificationRecords,
} from '../../stores/verification-records';
import { verificationWorkflowId } from '../shared/ids';

/**
 * Removes the records of verifications erased before `erasedBefore` (the business's retention
 * choice), and their closed creations, so a purged reference may start a new verification.
 * Resolves to the references purged.
 */
export async function purgeRecords(store: IdvStore, erasedBefore: Date): Promise<string[]> {
  // The closed creation goes before the record: a purge cut short between the two leaves the
  // record (the reference refused as erased) for a later purge, never a closed creation that no
  // record leads to, which would refuse every new verification under the reference.
  return await store.records.purge(erasedBefore.toISOString(), (reference) =>
    store.vault.forgetCreation(verificationWorkflowId(reference)),
  );
}

/**
 * Records the erasure of a reference's verification (the first time stays) and destroys every
 * key its record names: the other starts' (`supersededKeyIds`: a start taken over, or one that
 * lost to the verification that ran, may have left its sealed input in a caller's history) and
 * the one it names now (another start's still, while the verification's ending is not recorded).
 * Only when the record is the erased verification's: it names its data key (or session), so a
 * redaction that comes late (delayed, after the record was purged and the reference used again)
 * touches no later verification. Without `erased` (an activity scheduled by an earlier build),
 * the erasure is recorded and no key destroyed. Resolves to whether it was recorded. Idempotent.
 */
export async function recordErasure(
  store: { records: Pick<VerificationRecords, 'get' | 'redacted'> },
  dataKeys: Pick<DataKeys, 'destroy'>,
  reference: string,
  redactedAt: string,
  erased?: { dataKeyId?: string; sessionId?: string },
): Promise<boolean> {
  const matched = await destroyKeysOf(store, dataKeys, reference, erased);
  if (!matched) return false;
  // Recorded as the erasure of the key matched (also when matched by session), so the mark never
  // lands on a record made anew since, whose keys are others.
  await store.records.redacted(
    reference,
    redactedAt,
    erased ? (erased.dataKeyId ?? matched.dataKeyId) : undefined,
  );
  // Marked erased, the record can no longer be taken over (`restarted`); one that landed between
  // the read and the mark named a new start's key, which the record read again names.
  await destroyKeysOf(store, dataKeys, reference, erased);
  return true;
}

/**
 * Destroys every key the reference's record names (see {@link recordErasure}), only when the
 * record is the erased verification's; without `erased`, none. False when there is no record or
 * it names another verification. Idempotent.
 */
export async function destroyRecordKeys(
  store: { records: Pick<VerificationRecords, 'get'> },
  dataKeys: Pick<DataKeys, 'destroy'>,
  reference: string,
  erased?: { dataKeyId?: string; sessionId?: string },
): Promise<boolean> {
  return (await destroyKeysOf(store, dataKeys, reference, erased)) !== undefined;
}

/** {@link destroyRecordKeys}, resolving to the record it matched. */
async function destroyKeysOf(
  store: { records: Pick<VerificationRecords, 'get'> },
  dataKeys: Pick<DataKeys, 'destroy'>,
  reference: string,
  erased?: { dataKeyId?: string; sessionId?: string },
): Promise<VerificationRecord | undefined> {
  const record = await store.records.get(reference);
  if (!record) return undefined;
  if (!erased) return record;
  const ours =
    (erased.dataKeyId !== undefined && recordNamesKey(record, erased.dataKeyId)) ||
    (erased.sessionId !== undefined && record.sessionId?.toLowerCase() === erased.sessionId.toLowerCase());
  if (!ours) return undefined;
  for (const keyId of [record.dataKeyId, ...(record.supersededKeyIds ?? [])]) await dataKeys.destroy(keyId);
  return record;
}
