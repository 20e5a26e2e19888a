import { randomBytes, randomUUID } from 'node:crypto';
import { type Sealed } from '../domain/sealed';
import { type DataKeyStore, checkKeyId } from '../stores/data-key-store';
import { gcmOpen, gcmSeal } from './aes-gcm';
import { type EncryptionKey } from './encryption-keys';
import { openStream, sealStream } from './sealed-stream';

/** The verification's data key was destroyed by its redaction: its sealed values are gone for good. */
export class DataKeyDestroyedError extends Error {
  override readonly name = 'DataKeyDestroyedError';
}

/**
 * A data key cannot be used: unknown to the store (another store, or never created), wrapped
 * under a payload key this process does not hold, or a sealed value that does not authenticate.
 */
export class DataKeyUnavailableError extends Error {
  override readonly name = 'DataKeyUnavailableError';
}

const SEALED_AAD = (keyId: string) => `idv-sealed:${keyId}`;
const WRAP_AAD = (keyId: string) => `idv-data-key:${keyId}`;

/**
 * The per-verification data keys (crypto-shredding). Each key is 32 random bytes, kept in the
 * shared store wrapped (AES-256-GCM) under the newest payload key, so the store alone reveals
 * nothing; `destroy` leaves only a tombstone. Keys are never cached: once destroyed in the
 * store, no process can open the key's values again.
 */
export class DataKeys {
  readonly #store: DataKeyStore;
  readonly #wrapping: readonly EncryptionKey[];

  constructor(store: DataKeyStore, wrappingKeys: readonly EncryptionKey[]) {
    if (wrappingKeys.length === 0) throw new Error('DataKeys needs at least one payload key');
    this.#store = store;
    this.#wrapping = wrappingKeys;
  }

  /** Creates a key (a random id unless given; an existing id is kept as it is); resolves to its id. */
  async create(keyId: string = randomUUID()): Promise<string> {
    checkKeyId(keyId);
    const wrapper = this.#wrapping[0] as EncryptionKey;
    const wrapped = gcmSeal(wrapper.key, WRAP_AAD(keyId), randomBytes(32));
    await this.#store.create(keyId, `${wrapper.id}:${wrapped.toString('base64')}`);
    return keyId;
  }

  /** Encrypts a JSON value under the key. */
  async seal(keyId: string, value: unknown): Promise<Sealed> {
    const key = await this.#key(keyId);
    const data = gcmSeal(key, SEALED_AAD(keyId), Buffer.from(JSON.stringify(value)));
    return { sealed: 'aes-256-gcm', keyId, data: data.toString('base64') };
  }

  /** Decrypts a sealed value; {@link DataKeyDestroyedError} after the redaction. */
  async open(sealed: Sealed): Promise<unknown> {
    const key = await this.#key(sealed.keyId);
    const plain = gcmOpen(key, SEALED_AAD(sealed.keyId), Buffer.from(sealed.data, 'base64'));
    if (!plain)
      throw new DataKeyUnavailableError(
        `a value sealed under data key ${sealed.keyId} does not authenticate`,
      );
    return JSON.parse(plain.toString('utf8')) as unknown;
  }

  /** Seals content as it streams (attachments), bound to `aad` (what it is). */
  async sealStream(
    keyId: string,
    aad: string,
    content: AsyncIterable<Uint8Array>,
  ): Promise<AsyncGenerator<Buffer>> {
    return sealStream(await this.#key(keyId), `${keyId}:${aad}`, content);
  }

  /** Opens a sealed stream; {@link DataKeyDestroyedError} after the redaction. */
  async openStream(
    keyId: string,
    aad: string,
    stored: AsyncIterable<Uint8Array>,
  ): Promise<AsyncGenerator<Buffer>> {
    return openStream(await this.#key(keyId), `${keyId}:${aad}`, stored);
  }

  /** Destroys the key (idempotent); false when the store never knew it. */
  async destroy(keyId: string): Promise<boolean> {
    return await this.#store.destroy(checkKeyId(keyId));
  }

  async #key(keyId: string): Promise<Buffer> {
    const record = await this.#store.get(checkKeyId(keyId));
    if (!record) throw new DataKeyUnavailableError(`data key ${keyId} is not in this store`);
    if (record.state === 'destroyed')
      throw new DataKeyDestroyedError(`data key ${keyId} was destroyed at ${record.destroyedAt} (redacted)`);
    const separator = record.wrapped.indexOf(':');
    const wrapperId = record.wrapped.slice(0, separator);
    const wrapper = this.#wrapping.find((key) => key.id === wrapperId);
    if (!wrapper)
      throw new DataKeyUnavailableError(
        `data key ${keyId} is wrapped under payload key '${wrapperId}', which IDV_ENCRYPTION_KEYS does not hold`,
      );
    const key = gcmOpen(
      wrapper.key,
      WRAP_AAD(keyId),
      Buffer.from(record.wrapped.slice(separator + 1), 'base64'),
    );
    if (!key)
      throw new DataKeyUnavailableError(`data key ${keyId} does not authenticate under key '${wrapperId}'`);
    return key;
  }
}
