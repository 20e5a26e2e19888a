import { type IdvStore } from './idv-store';
import { openLocalStore } from './local/local-store';
import { openPostgresStore, redactedUrl } from './postgres/postgres-store';

/** The store cannot be opened; the message names where, never a password. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** Where the store is: `IDV_STORE_URL` (PostgreSQL), else the data dir (`vault/`, `data-keys/`, `blobs/`). */
export interface StoreLocation {
  storeUrl?: string | undefined;
  dataDir: string;
}

/** Opens the configured store (creating its tables or folders on first use). */
export async function openStore(location: StoreLocation): Promise<IdvStore> {
  if (!location.storeUrl) return await openLocalStore(location.dataDir);
  try {
    return await openPostgresStore(location.storeUrl);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreUnavailableError(`cannot open the store at ${redactedUrl(location.storeUrl)}: ${reason}`, {
      cause: error,
    });
  }
}
