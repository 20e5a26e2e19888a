import { type IdentityClient } from '../../api/identity/identity-client';
import { type ActivityDeps } from '../../activities/deps';
import { DataKeys } from '../../codec/data-keys';
import { openLocalStore } from '../../stores/local/local-store';
import { harnessEncryptionKeys } from './env';

/** Activity dependencies over a local store in `dataDir`, with the run's payload keys. */
export async function localActivityDeps(
  dataDir: string,
  identity: IdentityClient,
  extra: Partial<ActivityDeps> = {},
): Promise<ActivityDeps> {
  const store = await openLocalStore(dataDir);
  return {
    identity,
    vault: store.vault,
    blobs: store.blobs,
    dataKeys: new DataKeys(store.dataKeys, harnessEncryptionKeys()),
    ...extra,
  };
}
