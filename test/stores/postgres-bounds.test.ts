import { Client } from 'pg';
import { type IdvStore } from '../../stores/idv-store';
import { openPostgresStore } from '../../stores/postgres/postgres-store';
import { harnessEnv, harnessValue } from '../harness/env';
import { createTestDatabase, type TestDatabase } from '../harness/postgres';

// Every statement of the PostgreSQL store is bounded by the server: a row held by another
// session (a process stalled in its transaction, an operator's lock) fails the call, which its
// activity retries, rather than holding one of the pool's connections for ever.
describe('the PostgreSQL store’s bound on each statement', () => {
  let database: TestDatabase;
  let store: IdvStore;
  let holder: Client;
  beforeAll(async () => {
    database = await createTestDatabase(harnessValue(harnessEnv.postgresUrl));
    store = await openPostgresStore(database.url, { statementTimeoutMs: 1_000 });
    holder = new Client({ connectionString: database.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await store?.close();
    await database?.drop();
  });

  it('fails a call that waits on a row another session holds, and serves the next', async () => {
    await store.dataKeys.create('bounded-key', 'wrapped-1');
    await holder.query('BEGIN');
    await holder.query(`SELECT * FROM idv_data_keys WHERE key_id = 'bounded-key' FOR UPDATE`);
    try {
      await expect(store.dataKeys.rewrap('bounded-key', 'wrapped-1', 'wrapped-2')).rejects.toThrow(
        /statement timeout/,
      );
    } finally {
      await holder.query('ROLLBACK');
    }
    expect(await store.dataKeys.rewrap('bounded-key', 'wrapped-1', 'wrapped-2')).toBe(true);
  });
});
