import { Pool } from 'pg';
import { openPostgresStore } from '../../stores/postgres/postgres-store';
import { harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { createTestDatabase, type TestDatabase } from '../harness/postgres';
import { useVerificationStack } from '../harness/verification-stack';

// The store may be away when a verification's clean-up closes its creation: the close is then
// handed to the profile's orphan sweep, which makes it once the store is back, so no session
// claimed for it later can be kept by a verification that has ended.
describe('a clean-up whose store is away', () => {
  let database: TestDatabase;
  let pool: Pool;
  const stack = useVerificationStack(
    {},
    {
      store: async () => {
        database = await createTestDatabase(harnessValue(harnessEnv.postgresUrl));
        pool = new Pool({ connectionString: database.url });
        return await openPostgresStore(database.url);
      },
    },
  );
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('hands the close of its creation to the orphan sweep, which makes it once the store is back', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    const request = stack().request({ redactAfter: 'never' });
    const { handle } = await stack().idv.startVerification(request);
    await pool.query('ALTER TABLE idv_creation_slots RENAME TO idv_creation_slots_away');
    try {
      await handle.cancel('the store is away');
      // A minute of retries, then the close is handed over.
      await eventually(
        async () => ((await handle.progress()).orphanSweep ? true : undefined),
        'the close handed to the orphan sweep',
        120_000,
      );
      expect(
        await stack()
          .store.vault.creationClosed(handle.workflowId)
          .catch(() => 'away'),
      ).toBe('away');
    } finally {
      await pool.query('ALTER TABLE idv_creation_slots_away RENAME TO idv_creation_slots');
    }
    await eventually(
      async () => ((await stack().store.vault.creationClosed(handle.workflowId)) ? true : undefined),
      'the sweep to close the creation',
      90_000,
    );
    await stack().control('PUT', '/script', { outcome: 'by-input', latencyMs: 2_000 });
  }, 180_000);
});
