import { randomBytes, randomUUID } from 'node:crypto';
import { type Sealed } from './sealed';
import { type DataKeyStore, checkKeyId } from '../stores/data-key-store';
import { gcmOpen, gcmSeal } from './aes-gcm';
import { type KeyEncryptionKey, type Keyring } from './keyring';
import { openStream, sealStream } from './sealed-stream';

/** The verification's data key was destroyed by its redaction: its sealed values are gone for good. */
export class DataKeyDestroyedError extends Error {
  override readonly name = 'DataKeyDestroyedError';
}

/**
 * A data key cannot be used: unknown to the store (another store, or never created), wrapped
 * under a key-encryption key the keyring no longer has, or a sealed value that does not authenticate.
 */
export class DataKeyUnavailableError extends Error {
  override readonly name = 'DataKeyUnavailableError';
}

const SEALED_AAD = (keyId: string) => `idv-sealed:${keyId}`;
const WRAP_AAD = (keyId: string) => `idv-data-key:${keyId}`;

/**
 * The per-verification data keys (crypto-shredding). Each key is 32 random bytes, kept in the
 * shared store wrapped (AES-256-GCM) under the keyring's current key-encryption key, which never
 * touches the store; `destroy` leaves only a tombstone. Keys are never cached: once destroyed in
 * the store, no process can open the key's values again; once the keyring has retired the
 * key-encryption key it was wrapped under, no copy of the store can either.
 */
export class DataKeys {
  readonly #store: DataKeyStore;
  readonly #keyring: Keyring;

  constructor(store: DataKeyStore, keyring: Keyring) {
    this.#store = store;
    this.#keyring = keyring;
  }

  /** Creates a key (a random id unless given; an existing id is kept as it is); resolves to its id. */
  async create(keyId: string = randomUUID()): Promise<string> {
    checkKeyId(keyId);
    const key = randomBytes(32);
    const { key: wrapper, wrapBy } = await this.#keyring.current();
    const wrapped = wrapKey(wrapper, keyId, key);
    if (!(await this.#store.create(keyId, wrapped))) return keyId;
    // Written later than a rotation's re-wrapping may have passed (this process paused between
    // its look and the write): the key, still in hand, goes under the current key itself.
    if (performance.now() > wrapBy) {
      const { key: current } = await this.#keyring.current({ fresh: true });
      if (current.id !== wrapper.id) await this.#store.rewrap(keyId, wrapped, wrapKey(current, keyId, key));
    }
    return keyId;
  }

  /**
   * Re-wraps every live key not under key-encryption key `currentId` (among `keys`) under it,
   * in key id order from `after`; a key destroyed meanwhile stays destroyed. A key under a
   * key-encryption key not among `keys` cannot be opened any more: it is left as it is.
   */
  async rewrapAll(
    keys: readonly KeyEncryptionKey[],
    currentId: string,
    options: { after?: string; progress?: (after: string, rewrapped: number) => void } = {},
  ): Promise<{ rewrapped: number }> {
    const current = keys.find((key) => key.id === currentId);
    if (!current) throw new Error(`the current key-encryption key ${currentId} is not among the keys given`);
    let after = options.after;
    let rewrapped = 0;
    for (;;) {
      const page = await this.#store.wrappedElsewhere(currentId, { ...(after ? { after } : {}), limit: 200 });
      if (page.length === 0) return { rewrapped };
      for (const { keyId, wrapped } of page) {
        const wrapper = keys.find((key) => key.id === splitWrapped(wrapped).kekId);
        const key = wrapper ? unwrapKey(wrapper, keyId, wrapped) : undefined;
        if (key && (await this.#store.rewrap(keyId, wrapped, wrapKey(current, keyId, key)))) rewrapped += 1;
        after = keyId;
      }
      options.progress?.(after as string, rewrapped);
    }
  }

  /** Live keys not wrapped under key-encryption key `kekId` (at most `limit`): what a rotation would re-wrap. */
  async wrappedElsewhere(kekId: string, limit: number): Promise<string[]> {
    return (await this.#store.wrappedElsewhere(kekId, { limit })).map((entry) => entry.keyId);
  }

  /** Encrypts a JSON value under the key. */
  async seal(keyId: string, value: unknown): Promise<Sealed> {
    return sealUnder(keyId, await this.#key(keyId), value);
  }

  /**
   * Seals under the key read once, now: for a value to seal right after a call with effects (a
   * session's access key, once its create answered), where reading the key then could fail and
   * lose what the call made. Held for that call only (keys are not cached).
   */
  async sealer(keyId: string): Promise<(value: unknown) => Sealed> {
    const key = await this.#key(keyId);
    return (value) => sealUnder(keyId, key, value);
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
    const { kekId } = splitWrapped(record.wrapped);
    const wrapper = await this.#keyring.byId(kekId);
    if (!wrapper)
      throw new DataKeyUnavailableError(
        `data key ${keyId} is wrapped under key-encryption key '${kekId}', which the keyring no longer has`,
      );
    const key = unwrapKey(wrapper, keyId, record.wrapped);
    if (!key)
      throw new DataKeyUnavailableError(`data key ${keyId} does not authenticate under key '${kekId}'`);
    return key;
  }
}

/** A data key wrapped under a key-encryption key, as the store keeps it: `<kek id>:<base64>`. */
export function wrapKey(wrapper: KeyEncryptionKey, keyId: string, key: Buffer): string {
  return `${wrapper.id}:${gcmSeal(wrapper.key, WRAP_AAD(keyId), key).toString('base64')}`;
}

/** The data key from its stored form; undefined when it does not authenticate under `wrapper`. */
export function unwrapKey(wrapper: KeyEncryptionKey, keyId: string, wrapped: string): Buffer | undefined {
  return gcmOpen(wrapper.key, WRAP_AAD(keyId), Buffer.from(splitWrapped(wrapped).data, 'base64'));
}

/** The key-encryption key a stored data key is wrapped under, and the wrapped bytes. */
export function splitWrapped(wrapped: string): { kekId: string; data: string } {
  const separator = wrapped.indexOf(':');
  return { kekId: wrapped.slice(0, separator), data: wrapped.slice(separator + 1) };
}

function sealUnder(keyId: string, key: Buffer, value: unknown): Sealed {
  const data = gcmSeal(key, SEALED_AAD(keyId), Buffer.from(JSON.stringify(value)));
  return { sealed: 'aes-256-gcm', keyId, data: data.toString('base64') };
}
