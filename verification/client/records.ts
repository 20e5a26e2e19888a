import { type DataKeys } from '../../codec/data-keys';
import { type IdvStore } from '../../stores/idv-store';
import { verificationWorkflowId } from '../shared/ids';

/**
 * Removes the records of verifications erased before `erasedBefore` (the business's retention
 * choice), and their closed creations, so a purged reference may start a new verification.
 * Resolves to the references purged.
 */
export async function purgeRecords(store: IdvStore, erasedBefore: Date): Promise<string[]> {
  const purged = await store.records.purge(erasedBefore.toISOString());
  // After the record: a purge cut short leaves the reference used, never a record without its ending.
  for (const reference of purged) await store.vault.forgetCreation(verificationWorkflowId(reference));
  return purged;
}

/**
 * Records the erasure of a reference's verification (the first time stays) and destroys every
 * key its record names: the other starts' (`supersededKeyIds`: a start taken over, or one that
 * lost to the verification that ran, may have left its sealed input in a caller's history) and
 * the one it names now (another start's still, while the verification's ending is not recorded).
 * Idempotent.
 */
export async function recordErasure(
  store: Pick<IdvStore, 'records'>,
  dataKeys: Pick<DataKeys, 'destroy'>,
  reference: string,
  redactedAt: string,
): Promise<void> {
  const record = await store.records.get(reference);
  for (const keyId of [...(record?.supersededKeyIds ?? []), ...(record ? [record.dataKeyId] : [])])
    await dataKeys.destroy(keyId);
  await store.records.redacted(reference, redactedAt);
}
