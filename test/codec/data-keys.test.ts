import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataKeyDestroyedError, DataKeys, DataKeyUnavailableError } from '../../codec/data-keys';
import { type KeyEncryptionKey, type Keyring } from '../../codec/keyring';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { FixedKeyring } from '../harness/fixed-keyring';

// Crypto-shredding: values sealed under a verification's data key are readable until the key is
// destroyed, then by nobody, whatever keys they hold; once the keyring has rotated past the
// destruction, not even with a copy of the store taken before it.
describe('data keys', () => {
  let directory: string;
  let store: IdvStore;
  const person = { person: { givenName: 'Ada', familyName: 'Lovelace', dateOfBirth: '1815-12-10' } };
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'idv-data-keys-'));
    store = await openLocalStore(join(directory, 'store'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('seals a value so that neither the sealed form nor the store shows it, and opens it', async () => {
    const keyring = new FixedKeyring();
    const dataKeys = new DataKeys(store.dataKeys, keyring);
    const keyId = await dataKeys.create();
    const sealed = await dataKeys.seal(keyId, person);
    expect(sealed).toMatchObject({ sealed: 'aes-256-gcm', keyId });
    expect(JSON.stringify(sealed)).not.toContain('Lovelace');
    await expect(dataKeys.open(sealed)).resolves.toEqual(person);
    // The store holds the key wrapped under the keyring's current key, never the raw key or the value.
    const stored = await readFile(join(directory, 'store', 'data-keys', `${keyId}.json`), 'utf8');
    expect(stored).toContain(`"wrapped":"${keyring.keys[0]?.id}:`);
  });

  it('makes every sealed copy unreadable once the key is destroyed', async () => {
    const dataKeys = new DataKeys(store.dataKeys, new FixedKeyring());
    const keyId = await dataKeys.create();
    const sealed = await dataKeys.seal(keyId, person);
    expect(await dataKeys.destroy(keyId)).toBe(true);
    await expect(dataKeys.open(sealed)).rejects.toBeInstanceOf(DataKeyDestroyedError);
    await expect(dataKeys.seal(keyId, person)).rejects.toBeInstanceOf(DataKeyDestroyedError);
    // Creating the id again does not bring a key back.
    await dataKeys.create(keyId);
    await expect(dataKeys.open(sealed)).rejects.toBeInstanceOf(DataKeyDestroyedError);
  });

  it('keeps live keys through a rotation, and a copy of the store taken before a destruction opens nothing after it', async () => {
    const keyring = new FixedKeyring();
    const dataKeys = new DataKeys(store.dataKeys, keyring);
    const [kept, erased] = [await dataKeys.create(), await dataKeys.create()];
    const [keptValue, erasedValue] = [await dataKeys.seal(kept, person), await dataKeys.seal(erased, person)];
    const copy = join(directory, 'copy');
    await cp(join(directory, 'store'), copy, { recursive: true });
    await dataKeys.destroy(erased);
    const fromCopy = new DataKeys((await openLocalStore(copy)).dataKeys, keyring);
    // Before the rotation, the copy still opens what it holds: that is what the rotation is for.
    await expect(fromCopy.open(erasedValue)).resolves.toEqual(person);

    const current = keyring.rotate();
    await dataKeys.rewrapAll(keyring.keys, current.id);
    keyring.retire();

    await expect(dataKeys.open(keptValue)).resolves.toEqual(person);
    expect(await readFile(join(directory, 'store', 'data-keys', `${kept}.json`), 'utf8')).toContain(
      `"wrapped":"${current.id}:`,
    );
    await expect(fromCopy.open(erasedValue)).rejects.toThrow(
      new DataKeyUnavailableError(
        `data key ${erased} is wrapped under key-encryption key '${keyring.retiredIds[0]}', which the keyring no longer has`,
      ),
    );
    await expect(dataKeys.open(erasedValue)).rejects.toBeInstanceOf(DataKeyDestroyedError);
  });

  it('wraps a key written after a rotation may have passed it under the current key', async () => {
    // A process that paused between learning the current key and writing: by then a newer one is current.
    const keyring = new FixedKeyring();
    const stale = keyring.keys[0] as KeyEncryptionKey;
    const current = keyring.rotate();
    const lagging: Keyring = {
      current: async (options) =>
        options?.fresh ? await keyring.current() : { key: stale, wrapBy: performance.now() - 1 },
      byId: (id) => keyring.byId(id),
    };
    const keyId = await new DataKeys(store.dataKeys, lagging).create();
    expect(await readFile(join(directory, 'store', 'data-keys', `${keyId}.json`), 'utf8')).toContain(
      `"wrapped":"${current.id}:`,
    );
  });

  it('refuses a sealed value moved under another key, or altered', async () => {
    const dataKeys = new DataKeys(store.dataKeys, new FixedKeyring());
    const [a, b] = [await dataKeys.create(), await dataKeys.create()];
    const sealed = await dataKeys.seal(a, person);
    await expect(dataKeys.open({ ...sealed, keyId: b })).rejects.toBeInstanceOf(DataKeyUnavailableError);
    const altered = Buffer.from(sealed.data, 'base64');
    altered[20] = (altered[20] as number) ^ 1;
    await expect(dataKeys.open({ ...sealed, data: altered.toString('base64') })).rejects.toBeInstanceOf(
      DataKeyUnavailableError,
    );
    await expect(dataKeys.open({ ...sealed, keyId: 'never-created' })).rejects.toThrow(/not in this store/);
  });
});
