import { Pool } from 'pg';
import { type IdvStore } from '../idv-store';
import { PgBlobStore } from './pg-blob-store';
import { PgCompletionTimes } from './pg-completion-times';
import { PgDataKeyStore } from './pg-data-keys';
import { PgVerificationRecords } from './pg-records';
import { PgSessionVault } from './pg-session-vault';
import { migrate } from './schema';

/** The URL without its password or parameters (`?password=`, `sslkey=`…), for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    parsed.search = '';
    return parsed.href;
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /**
   * How long the server lets one statement run (or wait for a lock) before it cancels it: the
   * call fails and its activity retries, rather than a stalled session's lock holding one of the
   * pool's ten connections for ever. The longest statement writes a 1 MiB row of a blob.
   * @default 60_000
   */
  statementTimeoutMs?: number;
}

/** The store in PostgreSQL (`IDV_STORE_URL=postgres://…`), shared by the processes of several machines. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<IdvStore> {
  const pool = new Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 60_000,
    // A server gone without a word (a partition) is noticed by the connection, not by a query.
    keepAlive: true,
    application_name: 'idv-temporal',
  });
  // An idle connection the server closed is dropped by the pool; the next query opens another.
  pool.on('error', () => undefined);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    description: `PostgreSQL ${redactedUrl(url)}`,
    vault: new PgSessionVault(pool),
    dataKeys: new PgDataKeyStore(pool),
    blobs: new PgBlobStore(pool),
    records: new PgVerificationRecords(pool),
    completionTimes: new PgCompletionTimes(pool),
    close: () => pool.end(),
  };
}
