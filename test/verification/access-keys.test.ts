import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataKeyDestroyedError, DataKeys } from '../../codec/data-keys';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { accessKeyToKeep, keptAccessKey } from '../../verification/activities/access-keys';
import { FixedKeyring } from '../harness/fixed-keyring';

// The vault keeps a session's results access key sealed under its verification's data key, and
// still reads the plain keys that claims of release 1.0.0 hold.
describe('a results access key kept in the vault', () => {
  let directory: string;
  let store: IdvStore;
  let dataKeys: DataKeys;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'idv-access-keys-'));
    store = await openLocalStore(directory);
    dataKeys = new DataKeys(store.dataKeys, new FixedKeyring());
  });
  afterAll(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  const claimed = async (resultsAccessKey: string, dataKeyId: string) => {
    const sessionId = randomUUID();
    await store.vault.claim(sessionId, {
      workflowId: `idv-${randomUUID()}`,
      profileId: randomUUID(),
      resultsAccessKey,
      dataKeyId,
      collectionMethod: 'PollResult',
      nextStep: { method: 'LaunchBrowser', content: 'https://idv.example/launch', refresh: null },
    });
    return sessionId;
  };

  it('is kept sealed, opened while the data key lives, and unreadable once it is destroyed', async () => {
    const dataKeyId = await dataKeys.create();
    const sessionId = await claimed(accessKeyToKeep(await dataKeys.sealer(dataKeyId), 'the-key'), dataKeyId);
    expect(await store.vault.accessKey(sessionId)).not.toContain('the-key');
    await expect(keptAccessKey({ vault: store.vault, dataKeys }, sessionId)).resolves.toBe('the-key');
    await dataKeys.destroy(dataKeyId);
    await expect(keptAccessKey({ vault: store.vault, dataKeys }, sessionId)).rejects.toBeInstanceOf(
      DataKeyDestroyedError,
    );
  });

  it('of a claim made by release 1.0.0 (plain) is read as it is', async () => {
    const sessionId = await claimed('a-plain-key', await dataKeys.create());
    await expect(keptAccessKey({ vault: store.vault, dataKeys }, sessionId)).resolves.toBe('a-plain-key');
  });
});
