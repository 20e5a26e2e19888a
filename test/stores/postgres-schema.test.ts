import { Client } from 'pg';
import { openPostgresStore } from '../../stores/postgres/postgres-store';
import { SCHEMA_VERSION } from '../../stores/postgres/schema';
import { harnessEnv, harnessValue } from '../harness/env';
import { createTestDatabase, type TestDatabase } from '../harness/postgres';

// Every worker and `idv` command opens the store, most of them beside running workers: the
// schema's statements run once per text of them, and a store of a newer version is refused.
describe('the PostgreSQL store’s schema at start', () => {
  let database: TestDatabase;
  let other: Client;
  beforeAll(async () => {
    database = await createTestDatabase(harnessValue(harnessEnv.postgresUrl));
    await (await openPostgresStore(database.url)).close();
    other = new Client({ connectionString: database.url });
    await other.connect();
  });
  afterAll(async () => {
    await other?.end();
    await database?.drop();
  });

  it('opens while other sessions write to its tables in transactions', async () => {
    await other.query('BEGIN');
    try {
      // What a transaction writing to each table holds until it ends.
      for (const table of ['idv_session_keys', 'idv_blobs', 'idv_create_attempts', 'idv_records'])
        await other.query(`LOCK TABLE ${table} IN ROW EXCLUSIVE MODE`);
      const store = await openPostgresStore(database.url, { lockTimeoutMs: 1_000 });
      await store.close();
    } finally {
      await other.query('ROLLBACK');
    }
  });

  it('runs its statements on a store an earlier build made, whatever its version', async () => {
    // An earlier build's text, without a table added since for a new feature.
    await other.query('DROP TABLE idv_creation_slots');
    await other.query('UPDATE idv_schema_applied SET digest = $1', ['an earlier build']);
    await (await openPostgresStore(database.url)).close();
    const { rows } = await other.query<{ present: boolean }>(
      `SELECT to_regclass('idv_creation_slots') IS NOT NULL AS present`,
    );
    expect(rows[0]?.present).toBe(true);
  });

  it('refuses a store a newer version wrote, its statements run or not', async () => {
    const newer = `schema version ${SCHEMA_VERSION + 1}, newer than this version`;
    await other.query('UPDATE idv_schema SET version = $1', [SCHEMA_VERSION + 1]);
    try {
      await expect(openPostgresStore(database.url)).rejects.toThrow(newer);
      await other.query('DELETE FROM idv_schema_applied');
      await expect(openPostgresStore(database.url)).rejects.toThrow(newer);
    } finally {
      await other.query('UPDATE idv_schema SET version = $1', [SCHEMA_VERSION]);
    }
  });
});
