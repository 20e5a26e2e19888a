import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { type IdvClient } from '../../verification/client/idv-client';
import { type IdvStore } from '../../stores/idv-store';
import { openPostgresStore } from '../../stores/postgres/postgres-store';
import { createVerificationWorker } from '../../workers/verification-worker';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from '../harness/env';
import { createTestDatabase, type TestDatabase } from '../harness/postgres';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';

/** A worker of its own: its own data dir, its own connection to the shared PostgreSQL store. */
interface NamedWorker {
  start(): Promise<void>;
  stop(): Promise<void>;
  dispose(): Promise<void>;
}

// Two workers on one task queue, on "two machines": separate data dirs, nothing shared but the
// PostgreSQL store. Each step runs on whichever worker is up, so a verification created by one is
// finished and redacted by the other, through the store alone.
describe('two workers sharing only the PostgreSQL store', () => {
  let database: TestDatabase | undefined;
  const stack = useVerificationStack(
    {},
    {
      store: async () => {
        database = await createTestDatabase(harnessValue(harnessEnv.postgresUrl));
        return await openPostgresStore(database.url);
      },
    },
  );
  let clientStore: IdvStore;
  let idv: IdvClient;
  const workers: Record<'a' | 'b', NamedWorker> = {} as Record<'a' | 'b', NamedWorker>;

  const namedWorker = async (name: string): Promise<NamedWorker> => {
    const dataDir = await mkdtemp(join(tmpdir(), `idv-worker-${name}-`));
    const store = await openPostgresStore((database as TestDatabase).url);
    const connection = await NativeConnection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    let worker: Worker | undefined;
    let running: Promise<void> | undefined;
    const stop = async () => {
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running;
      worker = undefined;
    };
    return {
      async start() {
        worker = await createVerificationWorker({
          connection,
          taskQueue: stack().taskQueue,
          workerIdentity: `worker-${name}`,
          identity: stack().identity,
          store,
          encryptionKeys: harnessEncryptionKeys(),
          workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
        });
        running = worker.run();
      },
      stop,
      async dispose() {
        await stop();
        await store.close();
        await connection.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  };

  beforeAll(async () => {
    // The stack's own worker steps aside: only the two named ones run tasks.
    await stack().stopWorker();
    workers.a = await namedWorker('a');
    workers.b = await namedWorker('b');
    clientStore = await openPostgresStore((database as TestDatabase).url);
    idv = harnessIdvClient(stack().client, clientStore, stack().taskQueue);
  });
  afterAll(async () => {
    await workers.a?.dispose();
    await workers.b?.dispose();
    await clientStore?.close();
    await database?.drop();
  });

  /** Who ran each activity of a workflow, by activity type. */
  const ranBy = async (workflowId: string): Promise<Record<string, string[]>> => {
    const { events } = await stack().client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = new Map<string, string>();
    const by: Record<string, string[]> = {};
    for (const event of events ?? []) {
      const activity = event.activityTaskScheduledEventAttributes;
      if (activity) scheduled.set(String(event.eventId), activity.activityType?.name ?? '?');
      const started = event.activityTaskStartedEventAttributes;
      if (started) {
        const type = scheduled.get(String(started.scheduledEventId)) ?? '?';
        (by[type] ??= []).push(started.identity ?? '?');
      }
    }
    return by;
  };

  it('creates on one worker, finishes and stores results on the other, redacts on the first', async () => {
    // Both on the queue at once first: whichever picks a task, the store is the same.
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await workers.b.start();
    await workers.a.start();
    const { handle: shared } = await idv.startVerification(stack().request({ redactAfter: 'never' }));
    await stack().control('POST', `/sessions/${(await shared.progress()).sessionId}/complete`);
    await expect(shared.result()).resolves.toMatchObject({ status: 'succeeded' });
    await workers.b.stop();
    await workers.a.stop();

    await workers.a.start();
    const started = await Promise.all(
      [1, 2, 3].map(() =>
        idv.startVerification(
          stack().request({
            results: 'data+attachments',
            redactAfter: 'never',
            polling: { initialMs: 200, maxMs: 500 },
          }),
        ),
      ),
    );
    await workers.a.stop();
    await workers.b.start();
    for (const { nextStep } of started)
      await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    const outcomes = await Promise.all(started.map(({ handle }) => handle.result()));
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({
        status: 'succeeded',
        identity: { person: { familyName: 'Lovelace' } },
      });
      const [attachment] = outcome.attachments ?? [];
      expect(attachment?.uri).toMatch(/^idv-store:blobs\//);
      const content = await idv.readAttachment(outcome.sessionId ?? '', attachment?.id ?? '');
      const hash = createHash('sha256');
      for await (const chunk of content ?? []) hash.update(chunk);
      expect(hash.digest('hex')).toBe(attachment?.sha256);
    }

    await workers.b.stop();
    await workers.a.start();
    const reports = [];
    for (const { handle } of started) reports.push(await idv.redactVerification(handle.reference));
    for (const report of reports) {
      expect(report).toMatchObject({ redactedAtService: true, dataKeyDestroyed: true });
      expect(report.attachmentsDeleted).toBeGreaterThan(0);
    }
    for (const [index, { handle }] of started.entries()) {
      await expect(handle.result()).resolves.toMatchObject({ identityRedacted: true });
      const outcome = outcomes[index];
      expect(
        await idv.readAttachment(outcome?.sessionId ?? '', outcome?.attachments?.[0]?.id ?? ''),
      ).toBeUndefined();
      const by = await ranBy(handle.workflowId);
      expect(by.createSession).toEqual(['worker-a']);
      expect(by.fetchResults).toEqual(['worker-b']);
      const redaction = await ranBy(`idv-redact-${outcome?.sessionId}`);
      expect(redaction.deleteLocalSessionData).toEqual(['worker-a']);
    }
  }, 120_000);
});
