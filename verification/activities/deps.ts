import { type IdentityClient } from '../../api/identity/identity-client';
import { type DataKeys } from '../../codec/data-keys';
import { type BlobStore } from '../../stores/blob-store';
import { type SessionVault } from '../../stores/session-vault';
import { type VerificationRecords } from '../../stores/verification-records';
import { type HeldPolls } from './held-polls';
import { type OrphanSettings } from './orphan-settings';
import { type PollLearning } from './poll-learning';
import { type ResultLimits } from './result-limits';

/** What the verification activities need; built once per worker. */
export interface VerificationDeps {
  identity: IdentityClient;
  vault: SessionVault;
  blobs: BlobStore;
  /** The verification records (endings and erasures are recorded there). */
  records: VerificationRecords;
  /** The verifications' data keys: the person's data is sealed and opened with them. */
  dataKeys: DataKeys;
  /** What polls learn of completion times, to place the next polls by (see `PollLearning`). @default polls by the fixed rule only */
  pollLearning?: PollLearning;
  /** Where poll attempts are held between their polls (see `HeldPolls`). @default one poll per attempt */
  heldPolls?: HeldPolls;
  /** Bounds of results fetching. @default defaultResultLimits */
  resultLimits?: Partial<ResultLimits>;
  /** The orphan sweep's horizon. @default 24 hours */
  orphans?: Partial<OrphanSettings>;
}
