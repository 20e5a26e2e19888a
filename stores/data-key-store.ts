/** A data key as a store keeps it: wrapped (encrypted) by a payload encryption key. */
export type DataKeyRecord = { state: 'live'; wrapped: string } | { state: 'destroyed'; destroyedAt: string };

/**
 * Keeps the data key of each verification, wrapped, until the redaction destroys it (a tombstone
 * remains, so "destroyed" and "never existed" can be told apart and a key id is never reused).
 */
export interface DataKeyStore {
  /** Stores a new key; false (and nothing changes) when the id already exists, live or destroyed. */
  create(keyId: string, wrapped: string): Promise<boolean>;
  /** The key's record; undefined when the id is unknown. */
  get(keyId: string): Promise<DataKeyRecord | undefined>;
  /** Destroys the key, leaving a tombstone; false when it was unknown. Idempotent. */
  destroy(keyId: string): Promise<boolean>;
  /**
   * Replaces a live key's wrapped form, only if it is still `from` (a key destroyed or re-wrapped
   * meanwhile is left as it is); true when replaced. A destruction that races it wins.
   */
  rewrap(keyId: string, from: string, to: string): Promise<boolean>;
  /**
   * Live keys not wrapped under key-encryption key `kekId`, in key id order after `after`, at
   * most `limit`: what a rotation re-wraps.
   */
  wrappedElsewhere(
    kekId: string,
    options: { after?: string; limit: number },
  ): Promise<Array<{ keyId: string; wrapped: string }>>;
}

const KEY_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/** Whether `keyId` could be a data key's id: a bounded string that could be a file name. */
export function isKeyId(keyId: unknown): keyId is string {
  return typeof keyId === 'string' && KEY_ID.test(keyId) && !keyId.startsWith('.');
}

/** Refuses a key id that could not be a file name or is unbounded (see {@link isKeyId}). */
export function checkKeyId(keyId: string): string {
  if (!isKeyId(keyId)) throw new Error(`not a data key id: ${String(JSON.stringify(keyId)).slice(0, 80)}`);
  return keyId;
}
