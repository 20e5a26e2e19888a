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
