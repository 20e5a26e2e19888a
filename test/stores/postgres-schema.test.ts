import { Client, Pool } from 'pg';
import { openPostgresStore } from '../../stores/postgres/postgres-store';
import { migrate, SCHEMA_VERSION } from '../../stores/postgres/schema';
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

  it('runs its statements once when processes of one build start together on a store without them', async () => {
    await other.query('DELETE FROM idv_schema_applied');
    let runs = 0;
    // Each process's pool, counting the runs of the schema's statements.
    const counted = () => {
      const pool = new Pool({ connectionString: database.url, max: 2 });
      const connect = pool.connect.bind(pool);
      const wrapped = new WeakSet<object>();
      Object.assign(pool, {
        connect: async () => {
          const client = await connect();
          // A client the pool gives again is counted once.
          if (wrapped.has(client)) return client;
          wrapped.add(client);
          const query = client.query.bind(client) as (text: unknown, values?: unknown) => Promise<unknown>;
          return Object.assign(client, {
            query: (text: unknown, values?: unknown) => {
              if (typeof text === 'string' && text.includes('CREATE TABLE IF NOT EXISTS idv_schema '))
                runs += 1;
              return query(text, values);
            },
          });
        },
      });
      return pool;
    };
    const pools = [counted(), counted(), counted()];
    try {
      await Promise.all(pools.map((pool) => migrate(pool)));
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
    expect(runs).toBe(1);
  });
});
