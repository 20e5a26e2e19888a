import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { harnessEnv, harnessValue } from '../harness/env';
import { ApplicationFailure } from '@temporalio/common';
import { type IdentityClient } from '../../api/identity/identity-client';
import { keyringActivities, refusedForGood } from '../../keyring/activities';
import { TemporalKeyring } from '../../keyring/client';
import { DataKeys } from '../../codec/data-keys';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { keyringQuery, keyringWorkflowId, rotateKeysSignal } from '../../keyring/shared';
import { type ActivityDeps } from '../../workers/activities';
import { FixedKeyring } from '../harness/fixed-keyring';
import { eventually } from '../harness/eventually';
import { withWorker } from '../harness/worker';
import { keyring } from '../../keyring/workflow';
import { expectSummaryAttributes } from '../harness/summaries';

// The keyring under a misbehaving Temporal and a changing deployment: rotations keep coming, a
// request is never dropped, and no live data key is lost.

type KeyringActivities = ReturnType<typeof keyringActivities>;

function keyringOver(
  store: IdvStore,
  settings: { rotateEveryMs: number; refreshMs: number },
): KeyringActivities {
  // rewrapAll never asks the keyring; the other activities read only the settings.
  const deps: ActivityDeps = {
    identity: {} as IdentityClient,
    vault: store.vault,
    blobs: store.blobs,
    records: store.records,
    dataKeys: new DataKeys(store.dataKeys, new FixedKeyring()),
    keyring: settings,
  };
  return keyringActivities(deps);
}

async function view(client: Client, taskQueue: string) {
  return await client.workflow.getHandle(keyringWorkflowId(taskQueue)).query(keyringQuery);
}

/** Keyring activities whose re-wraps wait, once entered, until released. */
function gatedRewrap(real: KeyringActivities) {
  let releaseRewrap: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (releaseRewrap = resolve));
  let enterRewrap: () => void = () => undefined;
  const rewrapEntered = new Promise<void>((resolve) => (enterRewrap = resolve));
  const activities: KeyringActivities = {
    ...real,
    async rewrapDataKeys(args) {
      enterRewrap();
      await gate;
      return await real.rewrapDataKeys(args);
    },
  };
  return { activities, rewrapEntered, releaseRewrap };
}

describe('the keyring', () => {
  let directory: string;
  let store: IdvStore;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'idv-keyring-'));
    store = await openLocalStore(directory);
  });
  afterAll(async () => {
    await store?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps rotating (or asks for attention) when deleting its earlier runs is refused', async () => {
    const real = keyringOver(store, { rotateEveryMs: 3_600_000, refreshMs: 200 });
    let refusals = 0;
    const activities: KeyringActivities = {
      ...real,
      // A namespace where the workers may not delete executions (Temporal Cloud API key without
      // the permission, an authorizer): DeleteWorkflowExecution answers PERMISSION_DENIED, which
      // the activity reports as a refusal for good.
      async deleteEarlierRuns(args) {
        if (!args.previousRunId) return await real.deleteEarlierRuns(args);
        refusals += 1;
        throw ApplicationFailure.create({
          type: 'TemporalRefused',
          message: '7 PERMISSION_DENIED: Request unauthorized.',
          nonRetryable: true,
        });
      },
    };
    await withWorker({ activities }, async ({ client, taskQueue }) => {
      const keyring = new TemporalKeyring({ client, taskQueue });
      const dataKeys = new DataKeys(store.dataKeys, keyring);
      await dataKeys.create();
      const handle = client.workflow.getHandle(keyringWorkflowId(taskQueue));
      await handle.signal(rotateKeysSignal);
      await eventually(async () => (await view(client, taskQueue)).lastRotation, 'a first rotation');
      // Every run, the continued ones too, shows its summary in the UI's list.
      await expectSummaryAttributes(client, `WorkflowId = '${handle.workflowId}'`);
      await eventually(
        () => Promise.resolve(refusals > 0 ? true : undefined),
        'the second run trying to delete the first',
      );
      // An erasure that must not wait: the operator asks for a rotation (`idv keyring rotate`).
      const askedAt = Date.now();
      await handle.signal(rotateKeysSignal);
      // Rotations go on; the refusal is said (the keyring asks for attention, and why).
      const after = await eventually(async () => {
        const current = await view(client, taskQueue);
        return (current.lastRotation?.startedAt ?? 0) >= askedAt ? current : undefined;
      }, 'a rotation after the refusal');
      expect(after.attention).toContain('could not be deleted');
      const description = await handle.describe();
      expect(description.searchAttributes.IdvStatus?.[0]).toBe('needs-attention');
    });
  }, 90_000);

  it('asks for attention when, started anew, it cannot check the store for data keys of an earlier keyring', async () => {
    const real = keyringOver(store, { rotateEveryMs: 3_600_000, refreshMs: 200 });
    const activities: KeyringActivities = {
      ...real,
      // The store refuses the check for good (a role without read access to the keys' table),
      // until it is granted; then nothing of an earlier keyring is found.
      liveKeysUnderOtherKeys() {
        if (granted) return Promise.resolve(0);
        return Promise.reject(
          ApplicationFailure.create({
            type: 'StoreRefused',
            message: 'permission denied for table data_keys',
            nonRetryable: true,
          }),
        );
      },
    };
    let granted = false;
    await withWorker({ activities }, async ({ client, taskQueue }) => {
      const keyring = new TemporalKeyring({ client, taskQueue });
      await new DataKeys(store.dataKeys, keyring).create();
      // Not "nothing lost": the keyring could not tell, and says so.
      const current = await eventually(async () => {
        const seen = await view(client, taskQueue);
        return seen.attention ? seen : undefined;
      }, 'the keyring asking for attention');
      expect(current.attention).toContain('could not check');
      expect(current.attention).toContain('permission denied for table data_keys');
      const handle = client.workflow.getHandle(keyringWorkflowId(taskQueue));
      expect((await handle.describe()).searchAttributes.IdvStatus?.[0]).toBe('needs-attention');
      // Checked again after the next rotation, which it now goes through: all is well again.
      granted = true;
      await handle.signal(rotateKeysSignal);
      await eventually(async () => {
        const seen = await view(client, taskQueue);
        return seen.lastRotation && !seen.attention ? true : undefined;
      }, 'the attention cleared');
      expect((await handle.describe()).searchAttributes.IdvStatus?.[0]).toBe('ok');
    });
  }, 60_000);

  it("takes a listing Temporal refuses for good as a refusal, though the client's error carries its status inside", async () => {
    const connection = await Connection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    try {
      const client = new Client({ connection });
      // A query the server does not take: the client throws its ServiceError, whose cause holds
      // INVALID_ARGUMENT. Retrying would only fail the same way until the activity's bound.
      const listed = refusedForGood(async () => {
        for await (const run of client.workflow.list({ query: "WorkflowId = 'unclosed" })) void run;
      });
      await expect(listed).rejects.toMatchObject({ type: 'TemporalRefused', nonRetryable: true });
    } finally {
      await connection.close();
    }
  }, 60_000);

  it('asks for attention once a rotation has not re-wrapped the data keys within its period, long before its day is up', async () => {
    // A store of its own: the suite's holds data keys of other tests' keyrings.
    const own = await openLocalStore(join(directory, 'slow-rewrap'));
    const real = keyringOver(own, { rotateEveryMs: 5_000, refreshMs: 200 });
    let attempts = 0;
    const activities: KeyringActivities = {
      ...real,
      // The store refuses the re-wrap's writes (failed over to a read-only replica, say).
      rewrapDataKeys() {
        attempts += 1;
        return Promise.reject(new Error('cannot execute UPDATE in a read-only transaction'));
      },
    };
    await withWorker({ activities }, async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(keyring, {
        taskQueue,
        workflowId: keyringWorkflowId(taskQueue),
        args: [{}],
      });
      await handle.signal(rotateKeysSignal);
      const said = await eventually(
        async () => {
          const current = await handle.query(keyringQuery);
          return current.attention ? current : undefined;
        },
        'the keyring asking for attention',
        30_000,
      );
      expect(said.attention).toContain('within its period');
      expect(said.lastRotation).toBeUndefined();
      expect(attempts).toBeGreaterThan(0);
      const description = await handle.describe();
      expect(description.searchAttributes.IdvStatus?.[0]).toBe('needs-attention');
      await handle.terminate('test over');
    });
    await own.close();
  }, 60_000);

  it('does not drop a rotation asked for while one is under way', async () => {
    // The first rotation's re-wrap waits for the second ask: it is under way however slow the machine.
    const { activities, rewrapEntered, releaseRewrap } = gatedRewrap(
      keyringOver(store, { rotateEveryMs: 3_600_000, refreshMs: 1_000 }),
    );
    await withWorker({ activities }, async ({ client, taskQueue }) => {
      const dataKeys = new DataKeys(store.dataKeys, new TemporalKeyring({ client, taskQueue }));
      await dataKeys.create();
      const handle = client.workflow.getHandle(keyringWorkflowId(taskQueue));
      await handle.signal(rotateKeysSignal);
      // The rotation is under way: its new key made, its re-wrap begun.
      await rewrapEntered;
      expect((await view(client, taskQueue)).keys).toHaveLength(2);
      // An erasure now, then `idv keyring rotate`, as the README says to do.
      const askedAt = Date.now();
      await handle.signal(rotateKeysSignal);
      releaseRewrap();
      const rotation = await eventually(
        async () => {
          const last = (await view(client, taskQueue)).lastRotation;
          return last && last.startedAt >= askedAt ? last : undefined;
        },
        'a rotation started after it was asked for',
        20_000,
      ).catch((error: unknown) => error as Error);
      expect(rotation).not.toBeInstanceOf(Error);
    });
  }, 60_000);

  it('keeps a live data key when the rotation period (and so refreshMs) changes between runs', async () => {
    // Workers of a rolling deployment: the keyring's first run got its schedule from a worker whose
    // processes use what they read for 3 s; its next run from one with a short period (50 ms).
    const oldSettings = { rotateEveryMs: 3_600_000, refreshMs: 3_000 };
    const newSettings = { rotateEveryMs: 3_600_000, refreshMs: 50 };
    let schedules = 0;
    // Run 1's re-wrap waits until a process has read the keyring.
    const gated = gatedRewrap(keyringOver(store, oldSettings));
    const { rewrapEntered, releaseRewrap } = gated;
    const activities: KeyringActivities = {
      ...gated.activities,
      keyringSchedule() {
        schedules += 1;
        return Promise.resolve(schedules === 1 ? oldSettings : newSettings);
      },
    };
    await withWorker({ activities }, async ({ client, taskQueue }) => {
      await new DataKeys(store.dataKeys, new TemporalKeyring({ client, taskQueue })).create();
      const handle = client.workflow.getHandle(keyringWorkflowId(taskQueue));
      await handle.signal(rotateKeysSignal);
      // Run 1 made k2 current and is about to re-wrap: a process reads k2, for 3 s.
      await rewrapEntered;
      const reader = new TemporalKeyring({ client, taskQueue });
      await reader.current({ fresh: true });
      releaseRewrap();
      await eventually(async () => (await view(client, taskQueue)).lastRotation, 'run 1 rotated');
      const firstRotation = (await view(client, taskQueue)).lastRotation?.startedAt ?? 0;
      // Run 2 (processes told 50 ms) rotates at once; the reader still holds k2 meanwhile.
      await handle.signal(rotateKeysSignal);
      await eventually(async () => {
        const current = await view(client, taskQueue);
        return (current.lastRotation?.startedAt ?? 0) > firstRotation && current.keys.length === 1
          ? true
          : undefined;
      }, 'run 2 rotated');
      const keyId = await new DataKeys(store.dataKeys, reader).create();
      // Any process, later: the key opens.
      const later = new DataKeys(store.dataKeys, new TemporalKeyring({ client, taskQueue }));
      await expect(later.seal(keyId, { person: 'Ada' })).resolves.toBeDefined();
    });
  }, 120_000);
});
