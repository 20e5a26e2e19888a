import { createHash } from 'node:crypto';
import { type Pool, type PoolClient } from 'pg';
import { inTransaction } from './transaction';

/**
 * Bump with every change below that earlier versions cannot work with (a column changed, a
 * meaning changed); a store refuses a database written by a newer version. A table added for
 * a new feature leaves it: workers of the earlier build, still running their pinned
 * verifications, must keep starting.
 */
export const SCHEMA_VERSION = 5;

const TABLES = `
CREATE TABLE IF NOT EXISTS idv_schema (version integer NOT NULL);
CREATE TABLE IF NOT EXISTS idv_schema_applied (digest text PRIMARY KEY);
CREATE TABLE IF NOT EXISTS idv_session_keys (
  session_id uuid PRIMARY KEY,
  workflow_id text NOT NULL,
  results_access_key text,
  destroyed_at timestamptz
);
CREATE TABLE IF NOT EXISTS idv_create_attempts (
  workflow_id text NOT NULL,
  idx integer NOT NULL,
  started_at_ms bigint NOT NULL,
  ended_at_ms bigint,
  settled boolean NOT NULL DEFAULT false,
  session_id uuid,
  PRIMARY KEY (workflow_id, idx)
);
CREATE TABLE IF NOT EXISTS idv_data_keys (
  key_id text PRIMARY KEY,
  wrapped text,
  destroyed_at timestamptz
);
CREATE TABLE IF NOT EXISTS idv_blobs (
  session_id uuid NOT NULL,
  name text NOT NULL,
  sha256 text NOT NULL,
  size_bytes bigint NOT NULL,
  chunks integer NOT NULL,
  PRIMARY KEY (session_id, name)
);
CREATE TABLE IF NOT EXISTS idv_blob_chunks (
  session_id uuid NOT NULL,
  name text NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (session_id, name, seq)
);
ALTER TABLE idv_session_keys ADD COLUMN IF NOT EXISTS data_key_id text;
ALTER TABLE idv_blobs ADD COLUMN IF NOT EXISTS upload text;
ALTER TABLE idv_create_attempts ADD COLUMN IF NOT EXISTS profile_id uuid;
ALTER TABLE idv_create_attempts ADD COLUMN IF NOT EXISTS attempt_id uuid;
CREATE UNIQUE INDEX IF NOT EXISTS idv_create_attempts_id ON idv_create_attempts (attempt_id);
CREATE INDEX IF NOT EXISTS idv_create_attempts_profile ON idv_create_attempts (profile_id, started_at_ms);
ALTER TABLE idv_session_keys ADD COLUMN IF NOT EXISTS profile_id uuid;
ALTER TABLE idv_session_keys ADD COLUMN IF NOT EXISTS collection_method text;
ALTER TABLE idv_session_keys ADD COLUMN IF NOT EXISTS next_step text;
ALTER TABLE idv_session_keys ADD COLUMN IF NOT EXISTS orphan boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS idv_session_keys_orphans ON idv_session_keys (profile_id) WHERE orphan;
CREATE INDEX IF NOT EXISTS idv_session_keys_workflow ON idv_session_keys (workflow_id);
CREATE TABLE IF NOT EXISTS idv_blob_deletions (
  session_id uuid PRIMARY KEY,
  deleted_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS idv_records (
  reference text PRIMARY KEY,
  profile_id text NOT NULL,
  provider text NOT NULL,
  data_key_id text NOT NULL,
  session_id text,
  status text NOT NULL,
  error_code text,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  redaction_due_at timestamptz,
  redacted_at timestamptz
);
CREATE INDEX IF NOT EXISTS idv_records_started ON idv_records (started_at);
ALTER TABLE idv_records ADD COLUMN IF NOT EXISTS superseded_key_ids text[];
CREATE TABLE IF NOT EXISTS idv_completion_times (
  provider text NOT NULL,
  bin integer NOT NULL,
  events double precision NOT NULL,
  exposure_ms double precision NOT NULL,
  PRIMARY KEY (provider, bin)
);
CREATE TABLE IF NOT EXISTS idv_creation_slots (
  workflow_id text PRIMARY KEY,
  session_id uuid,
  closed boolean NOT NULL DEFAULT false
);
`;

/**
 * Which statements above a database has run: one row per text of them, so a build whose text
 * was run already runs none of them again (and a build of another text runs its own).
 */
const TABLES_DIGEST = createHash('sha256').update(TABLES).digest('hex');

/**
 * Any process may start first: the tables are created once, under a lock, then the version
 * checked. A process that finds its statements run already takes no lock on the tables, so
 * starting beside running workers never queues behind their transactions, nor theirs behind it
 * (an `ALTER TABLE`, even one that changes nothing, waits for every transaction on its table).
 */
export async function migrate(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    if (await alreadyApplied(client)) return;
  } finally {
    client.release();
  }
  await inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('idv-temporal schema'))`);
    // Another process of this build may have run them while this one waited for the lock.
    if (await alreadyApplied(client)) return;
    await client.query(TABLES);
    const version = await versionOf(client);
    if (version === null)
      await client.query('INSERT INTO idv_schema (version) VALUES ($1)', [SCHEMA_VERSION]);
    else if (version < SCHEMA_VERSION)
      await client.query('UPDATE idv_schema SET version = $1', [SCHEMA_VERSION]);
    await client.query('INSERT INTO idv_schema_applied (digest) VALUES ($1) ON CONFLICT DO NOTHING', [
      TABLES_DIGEST,
    ]);
  });
}

/** Whether this build's statements were run on the database at its version (a newer one is refused). */
async function alreadyApplied(client: PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ present: boolean }>(
    `SELECT to_regclass('idv_schema_applied') IS NOT NULL AS present`,
  );
  if (!rows[0]?.present) return false;
  const version = await versionOf(client);
  const applied = await client.query('SELECT 1 FROM idv_schema_applied WHERE digest = $1', [TABLES_DIGEST]);
  return version === SCHEMA_VERSION && applied.rowCount === 1;
}

/** The database's schema version, none before the first start; one newer than this build's is refused. */
async function versionOf(client: PoolClient): Promise<number | null> {
  const { rows } = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM idv_schema',
  );
  const version = rows[0]?.version ?? null;
  if (version !== null && version > SCHEMA_VERSION)
    throw new Error(
      `the PostgreSQL store has schema version ${version}, newer than this version of idv-temporal (${SCHEMA_VERSION}): upgrade it`,
    );
  return version;
}
