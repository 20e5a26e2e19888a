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

/** Options of {@link openPostgresStore} (fixed in the workers and the CLI; tests shorten them). */
export interface PostgresStoreOptions {
  /**
   * How long the server lets a statement wait for a lock before it cancels it: under the
   * shortest attempt of an activity that calls the store (10 s), so a row held by a stalled
   * session fails the attempt's call, which the activity retries, rather than holding one of
   * the pool's ten connections past the attempt.
   * @default 5_000
   */
  lockTimeoutMs?: number;
  /**
   * How long the server lets a statement run at all (the longest writes a 1 MiB row of a blob);
   * the client gives up 5 s later, on a server gone without a word.
   * @default 60_000
   */
  statementTimeoutMs?: number;
}

/** The store in PostgreSQL (`IDV_STORE_URL=postgres://…`), shared by the processes of several machines. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<IdvStore> {
  const statementTimeoutMs = options.statementTimeoutMs ?? 60_000;
  const pool = new Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    lock_timeout: options.lockTimeoutMs ?? 5_000,
    statement_timeout: statementTimeoutMs,
    // A server gone (a partition) answers nothing: the query fails here, and its client is
    // dropped by the pool; keepalive probes find an idle connection's peer gone.
    query_timeout: statementTimeoutMs + 5_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
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
