import { chmod, cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { harnessEnv, harnessValue } from '../harness/env';
import { createTestDatabase, startPostgresServer } from '../harness/postgres';
import { installedBinDir } from '../harness/postgres-binaries';

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

describe('a PostgreSQL test server installed in a folder only its owner can enter', () => {
  // A checkout under `mktemp -d` or /root, tested as root: the server runs as nobody.
  let checkout: string;
  let copies: string;
  beforeAll(async () => {
    checkout = await mkdtemp(join(tmpdir(), 'idv-private-checkout-'));
    await cp(dirname(await realpath(installedBinDir())), join(checkout, 'postgres'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    copies = await mkdtemp(join(tmpdir(), 'idv-postgres-copies-'));
    await chmod(copies, 0o755);
  });
  afterAll(async () => {
    await rm(checkout, { recursive: true, force: true });
    await rm(copies, { recursive: true, force: true });
  });

  it('starts and serves queries', async () => {
    const data = await mkdtemp(join(tmpdir(), 'idv-postgres-data-'));
    try {
      const server = await startPostgresServer(data, {
        binDir: join(checkout, 'postgres', 'bin'),
        copiesDir: copies,
      });
      try {
        const answer = await withClient(server.url, (client) =>
          client.query<{ one: number }>('select 1 as one'),
        );
        expect(answer.rows).toEqual([{ one: 1 }]);
      } finally {
        await server.stop();
      }
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  });
});
