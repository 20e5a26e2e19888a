import { randomBytes, randomUUID } from 'node:crypto';

/** A key-encryption key: the data keys in the store are wrapped under one. */
export interface KeyEncryptionKey {
  id: string;
  /** 32 random bytes (AES-256). */
  key: Buffer;
}

/** The key new data keys are wrapped under, and until when a process may wrap under it. */
export interface CurrentKey {
  key: KeyEncryptionKey;
  /**
   * `performance.now()` after which a data key wrapped under `key` may have missed a rotation's
   * re-wrapping: it is checked against the keyring's current key once written.
   */
  wrapBy: number;
}

/**
 * Where a process gets the key-encryption keys. They never touch the store: a copy of the store
 * holds data keys only wrapped under them, so once one is retired (every data key under it
 * re-wrapped under a newer one, or destroyed), no copy of the store opens what it wrapped.
 */
export interface Keyring {
  /** The current key; `fresh` asks the keyring itself, past what the process learnt before. */
  current(options?: { fresh?: boolean }): Promise<CurrentKey>;
  /** A key by id; undefined once it is retired. */
  byId(id: string): Promise<KeyEncryptionKey | undefined>;
}

/** A key-encryption key as the keyring's payloads hold it: its id and the key in base64. */
export interface KeyringEntry {
  id: string;
  key: string;
}

const KEK_ID = /^kek-\d+-[0-9a-f]{8}$/;

/** A new key-encryption key, as the keyring holds it: `kek-<ms>-<8 hex>` and 32 random bytes. */
export function newKeyringEntry(nowMs: number): KeyringEntry {
  return { id: `kek-${nowMs}-${randomUUID().slice(0, 8)}`, key: randomBytes(32).toString('base64') };
}

/** True for a keyring entry: what the codec server never shows. */
export function isKeyringEntry(value: unknown): value is KeyringEntry {
  if (typeof value !== 'object' || value === null) return false;
  const { id, key } = value as Record<string, unknown>;
  return typeof id === 'string' && KEK_ID.test(id) && typeof key === 'string';
}
