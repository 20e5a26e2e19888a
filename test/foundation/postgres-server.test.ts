import { Client } from 'pg';
import { harnessEnv, harnessValue } from '../harness/env';
import { createTestDatabase } from '../harness/postgres';

async function withClient<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL test server', () => {
  const serverUrl = () => harnessValue(harnessEnv.postgresUrl);

  it('serves a fresh database per test that takes tables and rows', async () => {
    const database = await createTestDatabase(serverUrl());
    try {
      expect(new URL(database.url).pathname).toMatch(/^\/idv_test_[0-9a-f]+$/);
      const row = await withClient(database.url, async (client) => {
        const version = await client.query<{ version: string }>('select version()');
        expect(version.rows[0]?.version).toMatch(/^PostgreSQL \d+/);
        await client.query('create table greeting (id serial primary key, text text not null)');
        await client.query('insert into greeting (text) values ($1)', ['hello']);
        const result = await client.query<{ id: number; text: string }>('select id, text from greeting');
        return result.rows;
      });
      expect(row).toEqual([{ id: 1, text: 'hello' }]);
    } finally {
      await database.drop();
    }
  });

  it('drops a database, even with connections still open', async () => {
    const database = await createTestDatabase(serverUrl());
    const name = new URL(database.url).pathname.slice(1);
    const lingering = new Client({ connectionString: database.url });
    lingering.on('error', () => {}); // DROP ... WITH (FORCE) terminates this connection
    await lingering.connect();
    await database.drop();
    await database.drop(); // idempotent
    const remaining = await withClient(serverUrl(), async (client) => {
      const result = await client.query('select 1 from pg_database where datname = $1', [name]);
      return result.rowCount;
    });
    expect(remaining).toBe(0);
    await expect(withClient(database.url, () => Promise.resolve())).rejects.toThrow(/does not exist/);
    await lingering.end().catch(() => {});
  });
});
