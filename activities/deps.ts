import { type IdentityClient } from '../api/identity/identity-client';
import { type ResultLimits } from './result-limits';
import { type BlobStore } from './stores/blob-store';
import { type SessionVault } from './stores/session-vault';

/** What the activities need; built once per worker. */
export interface ActivityDeps {
  identity: IdentityClient;
  vault: SessionVault;
  blobs: BlobStore;
  /** Bounds of results fetching. @default defaultResultLimits */
  resultLimits?: Partial<ResultLimits>;
}
