import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM with a random IV: `iv | ciphertext | tag`, `aad` authenticated but not stored. */
export function gcmSeal(key: Buffer, aad: string, plain: Uint8Array): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** Opens what {@link gcmSeal} sealed; undefined when it is truncated, altered, or under another key/aad. */
export function gcmOpen(key: Buffer, aad: string, sealed: Uint8Array): Buffer | undefined {
  const data = Buffer.from(sealed);
  if (data.length < IV_BYTES + TAG_BYTES) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    return undefined;
  }
}
