/**
 * A value encrypted under the data key of its verification (crypto-shredding): readable while the
 * key lives, by processes holding the store and the payload keys; unreadable by anyone once the
 * redaction destroyed the key, from whatever history or copy it sits in.
 */
export interface Sealed {
  sealed: 'aes-256-gcm';
  /** The verification's data key (its id: not secret). */
  keyId: string;
  /** base64 of `iv | ciphertext | tag` of the value's JSON. */
  data: string;
}

/** True for a {@link Sealed} value (plain code: workflows use it too). */
export function isSealed(value: unknown): value is Sealed {
  if (typeof value !== 'object' || value === null) return false;
  const { sealed, keyId, data, ...rest } = value as Record<string, unknown>;
  return (
    sealed === 'aes-256-gcm' &&
    typeof keyId === 'string' &&
    keyId.length > 0 &&
    typeof data === 'string' &&
    Object.keys(rest).length === 0
  );
}

/** What a stored attachment's sealed content is bound to (besides its data key). */
export function attachmentAad(sessionId: string, attachmentId: string): string {
  return `attachment:${sessionId.toLowerCase()}/${attachmentId}`;
}
