import { type IdentityClient } from '../api/identity/identity-client';
import { type DataKeys } from '../codec/data-keys';
import { type BlobStore } from '../stores/blob-store';
import { type SessionVault } from '../stores/session-vault';
import { type ResultLimits } from './result-limits';

/** What the activities need; built once per worker. */
export interface ActivityDeps {
  identity: IdentityClient;
  vault: SessionVault;
  blobs: BlobStore;
  /** The verifications' data keys: the person's data is sealed and opened with them. */
  dataKeys: DataKeys;
  /** Bounds of results fetching. @default defaultResultLimits */
  resultLimits?: Partial<ResultLimits>;
}
