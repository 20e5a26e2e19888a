import { Client } from 'pg';
import { type IdvStore } from '../../stores/idv-store';
import { openPostgresStore } from '../../stores/postgres/postgres-store';
import { harnessEnv, harnessValue } from '../harness/env';
import { createTestDatabase, type TestDatabase } from '../harness/postgres';

// Every statement of the PostgreSQL store is bounded by the server: a row held by another
// session (a process stalled in its transaction, an operator's lock) fails the call, which its
// activity retries, rather than holding one of the pool's connections for ever.
describe('the PostgreSQL store’s bounds on each statement', () => {
  let database: TestDatabase;
  let holder: Client;
  beforeAll(async () => {
    database = await createTestDatabase(harnessValue(harnessEnv.postgresUrl));
    holder = new Client({ connectionString: database.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await database?.drop();
  });

  /** A rewrap of a key whose row another session holds: how it fails, and that the next call is served. */
  const heldRowRewrap = async (store: IdvStore, keyId: string) => {
    await store.dataKeys.create(keyId, 'wrapped-1');
    await holder.query('BEGIN');
    await holder.query('SELECT * FROM idv_data_keys WHERE key_id = $1 FOR UPDATE', [keyId]);
    let failure: unknown;
    try {
      failure = await store.dataKeys.rewrap(keyId, 'wrapped-1', 'wrapped-2').catch((error: unknown) => error);
    } finally {
      await holder.query('ROLLBACK');
    }
    expect(await store.dataKeys.rewrap(keyId, 'wrapped-1', 'wrapped-2')).toBe(true);
    return failure;
  };

  it('fails a call that waits for a lock past its bound, and serves the next', async () => {
    const store = await openPostgresStore(database.url, { lockTimeoutMs: 1_000 });
    try {
      expect(await heldRowRewrap(store, 'lock-bound')).toMatchObject({
        message: expect.stringMatching(/lock timeout/),
      });
    } finally {
      await store.close();
    }
  });

  it('fails a statement that runs past its bound, whatever it waits on', async () => {
    const store = await openPostgresStore(database.url, { lockTimeoutMs: 30_000, statementTimeoutMs: 1_000 });
    try {
      expect(await heldRowRewrap(store, 'statement-bound')).toMatchObject({
        message: expect.stringMatching(/statement timeout/),
      });
    } finally {
      await store.close();
    }
  });
});
