import { type IdentityClient } from '../../api/identity/identity-client';
import { type ActivityDeps } from '../../workers/activities';
import { DataKeys } from '../../codec/data-keys';
import { openLocalStore } from '../../stores/local/local-store';
import { FixedKeyring } from './fixed-keyring';

/** Activity dependencies over a local store in `dataDir`, with a keyring of their own (no worker runs). */
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
    records: store.records,
    dataKeys: new DataKeys(store.dataKeys, new FixedKeyring()),
    ...extra,
  };
}
