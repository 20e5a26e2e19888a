import { type Payload } from '@temporalio/common';
import { isSealed, type Sealed } from './sealed';
import { checkKeyId } from '../stores/data-key-store';
import { DataKeyDestroyedError, DataKeyUnavailableError, type DataKeys } from './data-keys';
import { isKeyringEntry } from './keyring';

/** What stands for a sealed value whose data key the redaction destroyed. */
export const REDACTED_TEXT = "data key destroyed by the redaction: this person's data is gone";

/** What stands for a sealed value whose data key lives, in the sealed view (`/sealed/decode`). */
export const SEALED_TEXT = "the person's data, sealed: the codec server's /decode opens it";

/**
 * How sealed values are shown: opened, or kept sealed (an operator's view with everything but
 * the person: a redacted one is marked in both).
 */
export type SealedView = 'open' | 'sealed';

/** What stands for a key-encryption key of the keyring. */
export const KEYRING_KEY_TEXT = 'key-encryption key: not shown';

/** Deeper JSON is left as it is (no payload of ours nests this deep; recursion stays bounded). */
const MAX_DEPTH = 64;

/**
 * A decoded `json/plain` payload with every sealed value inside opened, or marked `redacted`
 * (its data key destroyed) or `unreadable`, and every key-encryption key hidden; other payloads
 * as they are.
 */
export async function openSealedValues(
  payload: Payload,
  dataKeys: DataKeys,
  view: SealedView = 'open',
): Promise<Payload> {
  if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== 'json/plain') return payload;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload.data ?? []).toString('utf8'));
  } catch {
    return payload;
  }
  const opened = await openDeep(value, dataKeys, view, 0);
  return opened === value ? payload : { ...payload, data: Buffer.from(JSON.stringify(opened)) };
}

/** The value with every sealed value inside replaced; the same reference when there was none. */
async function openDeep(
  value: unknown,
  dataKeys: DataKeys,
  view: SealedView,
  depth: number,
): Promise<unknown> {
  if (isSealed(value)) return await openOrMark(value, dataKeys, view);
  // The keyring's own payloads: a key-encryption key is shown to no one.
  if (isKeyringEntry(value)) return { id: value.id, key: KEYRING_KEY_TEXT };
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return value;
  const entries = Object.entries(value);
  const opened: [string, unknown][] = [];
  for (const [name, item] of entries) opened.push([name, await openDeep(item, dataKeys, view, depth + 1)]);
  if (opened.every(([, item], index) => item === entries[index]?.[1])) return value;
  return Array.isArray(value) ? opened.map(([, item]) => item) : Object.fromEntries(opened);
}

async function openOrMark(sealed: Sealed, dataKeys: DataKeys, view: SealedView): Promise<unknown> {
  const { keyId } = sealed;
  try {
    checkKeyId(keyId);
  } catch {
    return { unreadable: 'not a data key id', keyId: keyId.slice(0, 200) };
  }
  try {
    // Opened in the sealed view too: only its key tells whether it is redacted.
    const opened = await dataKeys.open(sealed);
    return view === 'open' ? opened : { sealed: SEALED_TEXT, keyId };
  } catch (error) {
    if (error instanceof DataKeyDestroyedError) return { redacted: REDACTED_TEXT, keyId };
    if (error instanceof DataKeyUnavailableError) return { unreadable: error.message, keyId };
    throw error;
  }
}
