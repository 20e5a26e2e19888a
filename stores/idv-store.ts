import { type BlobStore } from './blob-store';
import { type CompletionTimesStore } from './completion-times-store';
import { type DataKeyStore } from './data-key-store';
import { type SessionVault } from './session-vault';
import { type VerificationRecords } from './verification-records';

/**
 * Everything the workers, clients and the codec server keep outside Temporal: the session vault,
 * the verifications' data keys, the stored attachments and the verification records. One store is shared by every process
 * of a deployment: a local directory (one machine) or PostgreSQL (several).
 */
export interface IdvStore {
  /** Where it is, for messages (no credentials). */
  readonly description: string;
  readonly vault: SessionVault;
  readonly dataKeys: DataKeyStore;
  readonly blobs: BlobStore;
  /** One record per verification, kept past Temporal's retention (never the person's data). */
  readonly records: VerificationRecords;
  /** Every worker's counts of how long sessions take to complete, per provider (polls are placed by them). */
  readonly completionTimes: CompletionTimesStore;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
