import { type DataKeys } from '../../codec/data-keys';
import { isSealed, type Sealed } from '../../codec/sealed';
import { type SessionVault } from '../../stores/session-vault';

/**
 * A session's results access key as the vault keeps it: sealed under the verification's data
 * key. The key reads the person's results at the service for as long as the service keeps them,
 * and a store's copies (a dump, a file backup, PostgreSQL's WAL) outlive the row the redaction
 * clears: sealed, no copy reads them once the data key is destroyed.
 */
export function accessKeyToKeep(seal: (value: unknown) => Sealed, key: string): string {
  return JSON.stringify(seal(key));
}

/**
 * The session's results access key, opened. A claim of release 1.0.0 keeps it plain: a key from
 * the service is a token, never a JSON object. `DataKeyDestroyedError` once redacted.
 */
export async function keptAccessKey(
  deps: { vault: Pick<SessionVault, 'accessKey'>; dataKeys: DataKeys },
  sessionId: string,
): Promise<string> {
  const kept = await deps.vault.accessKey(sessionId);
  const sealed = sealedForm(kept);
  if (!sealed) return kept;
  const key = await deps.dataKeys.open(sealed);
  if (typeof key !== 'string') throw new TypeError('the sealed results access key is not a key');
  return key;
}

function sealedForm(kept: string): Sealed | undefined {
  if (!kept.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(kept);
    return isSealed(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
