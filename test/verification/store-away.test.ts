import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { creationCloseWorkflowId } from '../../verification/shared/ids';
import { lookForOrphansSignal } from '../../verification/shared/messages';
import { type CreationCloseWorkflow, verificationWorkflowTypes } from '../../verification/shared/workflows';
import { openPostgresStore } from '../../stores/postgres/postgres-store';
import { harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { createTestDatabase, type TestDatabase } from '../harness/postgres';
import { useVerificationStack } from '../harness/verification-stack';

/** A verification stack on a PostgreSQL store of its own, and a pool to take its tables away. */
function usePostgresStack(orphanHorizonMs?: number) {
  let database: TestDatabase | undefined;
  let pool: Pool | undefined;
  const stack = useVerificationStack(
    {},
    {
      ...(orphanHorizonMs === undefined ? {} : { orphanHorizonMs }),
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
  return {
    stack,
    pool: () => {
      if (!pool) throw new Error('the stack has not started');
      return pool;
    },
  };
}

// The store may be away when a verification's clean-up closes its creation: the close is then
// handed to a workflow of its own, which makes it once the store is back, so no session claimed
// for it later can be kept by a verification that has ended.
describe('a clean-up whose store is away', () => {
  const { stack, pool: database } = usePostgresStack();
  let pool: Pool;
  beforeAll(() => {
    pool = database();
  });

  it('hands the close of its creation to a workflow of its own, which makes it once the store is back', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    const request = stack().request({ redactAfter: 'never' });
    const { handle } = await stack().idv.startVerification(request);
    await pool.query('ALTER TABLE idv_creation_slots RENAME TO idv_creation_slots_away');
    let closer: string;
    try {
      await handle.cancel('the store is away');
      // A minute of retries, then the close is handed over.
      closer = await eventually(
        async () => (await handle.progress()).creationClose,
        'the close handed to a workflow of its own',
        120_000,
      );
      expect(closer).toBe(`idv-orphans-close:${handle.workflowId}`);
      expect(
        await stack()
          .store.vault.creation(handle.workflowId)
          .catch(() => 'away'),
      ).toBe('away');
    } finally {
      await pool.query('ALTER TABLE idv_creation_slots_away RENAME TO idv_creation_slots');
    }
    await eventually(
      async () => ((await stack().store.vault.creation(handle.workflowId))?.closed ? true : undefined),
      'the creation closed',
      90_000,
    );
    const report = await stack().client.workflow.getHandle(closer).result();
    expect(report).toEqual({ workflowId: handle.workflowId, sweepAsked: expect.any(Boolean) });
    // Its ending recorded by the close: the verification's progress comes from its record.
    expect(await handle.progress()).toMatchObject({ status: 'cancelled', fromRecord: true });
    await stack().control('PUT', '/script', { outcome: 'by-input', latencyMs: 2_000 });
  }, 180_000);

  it('hands the close over as well when the store stops answering (its calls wait, never failing)', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    const { handle } = await stack().idv.startVerification(stack().request({ redactAfter: 'never' }));
    // A transaction holding the table: every call of the close waits behind it, as on a store
    // that stopped answering.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE idv_creation_slots IN ACCESS EXCLUSIVE MODE');
      await handle.cancel('the store stops answering');
      const closer = await eventually(
        async () => (await handle.progress()).creationClose,
        'the close handed to a workflow of its own',
        150_000,
      );
      expect(closer).toBe(`idv-orphans-close:${handle.workflowId}`);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    await eventually(
      async () => ((await stack().store.vault.creation(handle.workflowId))?.closed ? true : undefined),
      'the creation closed',
      90_000,
    );
    await stack().control('PUT', '/script', { outcome: 'by-input', latencyMs: 2_000 });
  }, 300_000);

  it('gives the close up visibly when the store stays away for the orphan horizon', async () => {
    const workflowId = `idv-never-closed-${randomUUID()}`;
    await pool.query('ALTER TABLE idv_creation_slots RENAME TO idv_creation_slots_away');
    try {
      const closing = stack().client.workflow.start<CreationCloseWorkflow>(
        verificationWorkflowTypes.creationClose,
        {
          workflowId: creationCloseWorkflowId(workflowId),
          taskQueue: stack().taskQueue,
          args: [{ verificationProfileId: stack().profileId, close: { workflowId } }],
        },
      );
      const error: unknown = await (await closing).result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('MaintenanceGaveUp');
      expect(cause.message).toMatch(/^sweep: closing a creation gave up: /);
      expect(cause.message).toContain(`the creation of ${workflowId} stays open`);
    } finally {
      await pool.query('ALTER TABLE idv_creation_slots_away RENAME TO idv_creation_slots');
    }
  }, 120_000);
});

// Verifications of release 1.0.0 hand their close to the profile's orphan sweep, which holds
// 1,000 at most: one more must still be made (by a workflow of its own), not dropped.
describe('an orphan sweep handed more closes than it holds, while the store is away', () => {
  // Long enough that neither the sweep nor a close gives up while the store is away.
  const { stack, pool: database } = usePostgresStack(10 * 60_000);
  let pool: Pool;
  beforeAll(() => {
    pool = database();
  });

  it('makes every close, the ones past its list by a workflow each', async () => {
    const profileId = randomUUID();
    const closes = Array.from({ length: 1_010 }, (_, i) => `idv-handed-over-${profileId}-${i}`);
    // Its looks fail while the attempts cannot be read.
    await pool.query('ALTER TABLE idv_create_attempts RENAME TO idv_create_attempts_away');
    try {
      const sweep = stack().client.workflow.getHandle(await stack().idv.sweepOrphans(profileId));
      await eventually(
        async () => {
          const { raw } = await sweep.describe();
          const look = raw.pendingActivities?.find(
            (activity) => activity.activityType?.name === 'sweepOrphans',
          );
          return (look?.attempt ?? 0) >= 2 ? true : undefined;
        },
        'a look failing',
        30_000,
      );
      for (let from = 0; from < closes.length; from += 50) {
        await Promise.all(
          closes
            .slice(from, from + 50)
            .map((workflowId) => sweep.signal(lookForOrphansSignal, { close: { workflowId } })),
        );
      }
    } finally {
      await pool.query('ALTER TABLE idv_create_attempts_away RENAME TO idv_create_attempts');
    }
    await eventually(
      async () => {
        const { rows } = await pool.query<{ closed: number }>(
          'SELECT count(*)::int AS closed FROM idv_creation_slots WHERE closed AND workflow_id = ANY($1)',
          [closes],
        );
        return rows[0]?.closed === closes.length ? true : undefined;
      },
      'every close made',
      150_000,
    );
  }, 240_000);
});
