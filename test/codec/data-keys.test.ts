import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataKeyDestroyedError, DataKeys, DataKeyUnavailableError } from '../../codec/data-keys';
import { type EncryptionKey, newEncryptionKeyEntry, parseEncryptionKeys } from '../../codec/encryption-keys';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';

// Crypto-shredding: values sealed under a verification's data key are readable until the key is
// destroyed, then by nobody, whatever payload keys they hold.
describe('data keys', () => {
  let directory: string;
  let store: IdvStore;
  const key1 = parseEncryptionKeys(newEncryptionKeyEntry('key-1'))[0] as EncryptionKey;
  const key2 = parseEncryptionKeys(newEncryptionKeyEntry('key-2'))[0] as EncryptionKey;
  const person = { person: { givenName: 'Ada', familyName: 'Lovelace', dateOfBirth: '1815-12-10' } };
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'idv-data-keys-'));
    store = await openLocalStore(directory);
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });
  const keys = (...wrapping: EncryptionKey[]) => new DataKeys(store.dataKeys, wrapping);

  it('seals a value so that neither the sealed form nor the store shows it, and opens it', async () => {
    const dataKeys = keys(key1);
    const keyId = await dataKeys.create();
    const sealed = await dataKeys.seal(keyId, person);
    expect(sealed).toMatchObject({ sealed: 'aes-256-gcm', keyId });
    expect(JSON.stringify(sealed)).not.toContain('Lovelace');
    await expect(dataKeys.open(sealed)).resolves.toEqual(person);
    // The store holds the key wrapped, never the raw key or the value.
    const files = await readdir(join(directory, 'data-keys'));
    const stored = await readFile(join(directory, 'data-keys', files[0] as string), 'utf8');
    expect(stored).toMatch(/"wrapped":"key-1:/);
  });

  it('makes every sealed copy unreadable once the key is destroyed', async () => {
    const dataKeys = keys(key1);
    const keyId = await dataKeys.create();
    const sealed = await dataKeys.seal(keyId, person);
    expect(await dataKeys.destroy(keyId)).toBe(true);
    await expect(dataKeys.open(sealed)).rejects.toBeInstanceOf(DataKeyDestroyedError);
    await expect(dataKeys.seal(keyId, person)).rejects.toBeInstanceOf(DataKeyDestroyedError);
    // Creating the id again does not bring a key back.
    await dataKeys.create(keyId);
    await expect(dataKeys.open(sealed)).rejects.toBeInstanceOf(DataKeyDestroyedError);
  });

  it('opens keys wrapped under an older payload key after rotation; a missing one is a clear error', async () => {
    const keyId = await keys(key1).create();
    const sealed = await keys(key1).seal(keyId, person);
    await expect(keys(key2, key1).open(sealed)).resolves.toEqual(person);
    const newer = await keys(key2, key1).create();
    expect((await store.dataKeys.get(newer)) as { wrapped: string }).toMatchObject({ wrapped: /^key-2:/ });
    await expect(keys(key2).open(sealed)).rejects.toThrow(
      new DataKeyUnavailableError(
        `data key ${keyId} is wrapped under payload key 'key-1', which IDV_ENCRYPTION_KEYS does not hold`,
      ),
    );
  });

  it('refuses a sealed value moved under another key, or altered', async () => {
    const dataKeys = keys(key1);
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
