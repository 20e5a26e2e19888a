import { randomBytes } from 'node:crypto';

/** One payload encryption key: an id (stored with each payload) and 32 bytes of AES-256 key. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** The configuration of `IDV_ENCRYPTION_KEYS` is unusable; the message names no key material. */
export class EncryptionKeysError extends Error {
  override readonly name = 'EncryptionKeysError';
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Parses `id:base64,id:base64…`, newest first: the first key encrypts new payloads, every key
 * decrypts the payloads written under it. Each key is 32 random bytes in standard base64.
 */
export function parseEncryptionKeys(text: string, variable = 'IDV_ENCRYPTION_KEYS'): EncryptionKey[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new EncryptionKeysError(`${variable} holds no key`);
  const keys = entries.map((entry, index) => {
    const separator = entry.indexOf(':');
    const id = separator < 0 ? '' : entry.slice(0, separator);
    const material = separator < 0 ? '' : entry.slice(separator + 1);
    if (!KEY_ID.test(id))
      throw new EncryptionKeysError(
        `${variable}: entry ${index + 1} must be <id>:<base64 key>, the id made of letters, digits, . _ -`,
      );
    if (!BASE64.test(material))
      throw new EncryptionKeysError(`${variable}: key '${id}' must be 32 bytes in base64 (44 characters)`);
    return { id, key: Buffer.from(material, 'base64') };
  });
  const ids = new Set<string>();
  for (const { id } of keys) {
    if (ids.has(id)) throw new EncryptionKeysError(`${variable}: key id '${id}' appears twice`);
    ids.add(id);
  }
  return keys;
}

/** A new key entry `id:base64` for `IDV_ENCRYPTION_KEYS`. */
export function newEncryptionKeyEntry(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}
