import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataKeys } from '../../codec/data-keys';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { FixedKeyring } from './fixed-keyring';

/** A suite's own directory store with data keys under a keyring of its own (no worker runs). */
export function useLocalDataKeys(name: string): () => { store: IdvStore; dataKeys: DataKeys } {
  let directory: string | undefined;
  let suite: { store: IdvStore; dataKeys: DataKeys } | undefined;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), `idv-${name}-`));
    const store = await openLocalStore(directory);
    suite = { store, dataKeys: new DataKeys(store.dataKeys, new FixedKeyring()) };
  });
  afterAll(async () => {
    await suite?.store.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });
  return () => {
    if (!suite) throw new Error('the local data keys are used outside their suite');
    return suite;
  };
}
