import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { request } from 'undici';
import { createAgentClient } from '../../api/agent/agent-client';
import { createIdentityClient } from '../../api/identity/identity-client';
import { encryptingDataConverter } from '../../codec/data-converter';
import { connectionWorkflowId } from '../../agent-platform/domain/agent-deliveries';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { openLocalStore } from '../../stores/local/local-store';
import { freePort } from '../../workers/dev/free-port';
import { type DevServer, startDevServer } from '../../workers/dev/temporal-dev-server';
import { ReceiverTokens } from '../../codec/receiver-tokens';
import { createVerificationWorker } from '../../workers/verification-worker';
import { connectionEventsQuery } from '../../agent-platform/shared/messages';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { uniqueTaskQueue } from '../harness/worker';
import { startIdvProcess, type WorkerProcess } from '../harness/worker-process';

const TENANT = 'tenant-z';
const CONNECTIONS = ['conn-a', 'conn-b', 'conn-c'];

// The receiver's promise: the platform POSTs events while Temporal is stopped and the receiver
// is SIGKILLed once; after both restart, every event reaches its connection's workflow once.
describe('receiver: zero loss across a stopped Temporal and a killed receiver', () => {
  let dataDir: string;
  let emulator: Emulator;
  let server: DevServer | undefined;
  let receiver: WorkerProcess | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-zero-loss-'));
    emulator = await startEmulator({ seed: 5, agentKeys: { [TENANT]: 'agent_key_tenant_z_0123456789' } });
  });
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running?.catch(() => undefined);
    await receiver?.kill();
    await server?.stop();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers every event exactly once', async () => {
    const port = await freePort();
    const dbFile = join(dataDir, 'temporal.sqlite');
    server = await startDevServer({ port, dbFile });
    const taskQueue = uniqueTaskQueue('zero-loss');
    const secret = randomBytes(32).toString('hex');
    const receiverPort = await freePort();
    const startReceiverProcess = () =>
      startIdvProcess(
        ['receiver', '--port', String(receiverPort)],
        {
          TEMPORAL_ADDRESS: server?.address,
          IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
          IDV_RECEIVER_SECRET: secret,
          IDV_TASK_QUEUE: taskQueue,
          IDV_DATA_DIR: dataDir,
        },
        'listening on',
      );
    receiver = await startReceiverProcess();
    const platform = createAgentClient({
      baseUrl: emulator.agentBaseUrl,
      apiKey: emulator.agentKeys[TENANT] ?? '',
    });
    await platform.createWebhook({
      url: new ReceiverTokens(secret).webhookUrl(`http://127.0.0.1:${receiverPort}`, TENANT),
      type: 'Notification',
    });
    await platform.close();

    // Three senders deliver without pause while Temporal stops and the receiver is killed.
    const connectionOf = new Map<string, string>();
    const acknowledged = new Set<string>();
    let n = 0;
    const deliver = async (objectId = `event-${(n += 1)}`) => {
      const connection = connectionOf.get(objectId) ?? CONNECTIONS[n % CONNECTIONS.length] ?? '';
      connectionOf.set(objectId, connection);
      const response = await request(`${emulator.controlUrl}/agent-events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          tenant: TENANT,
          message_type: 'verification',
          object_id: objectId,
          connection_id: connection,
        }),
      });
      const { deliveries } = (await response.body.json()) as { deliveries: Array<{ status?: number }> };
      const status = deliveries[0]?.status;
      if (status === 200 || status === 202) acknowledged.add(objectId);
      return status;
    };
    // Senders deliver whenever they are allowed to; each phase allows a few more, so the stop and
    // the kill land while deliveries are in flight, and the count stays small.
    let sending = true;
    let allowance = 0;
    let opened: () => void = () => undefined;
    let gate = new Promise<void>((resolve) => (opened = resolve));
    const allow = (count: number) => {
      allowance += count;
      opened();
      gate = new Promise<void>((resolve) => (opened = resolve));
    };
    const statuses: Array<number | undefined> = [];
    const senders = [0, 1, 2].map(async () => {
      while (sending) {
        if (allowance <= 0) {
          await gate;
          continue;
        }
        allowance -= 1;
        statuses.push(await deliver());
      }
    });
    const countOf = (status: number | undefined) => statuses.filter((seen) => seen === status).length;
    const reach = (what: string, done: () => boolean) =>
      eventually(() => Promise.resolve(done() ? true : undefined), what, 60_000);
    allow(9);
    await reach('deliveries into Temporal', () => countOf(200) >= 6);
    await server.stop();
    allow(15);
    await reach('deliveries into the spool', () => countOf(202) >= 10);
    await receiver.kill();
    receiver = await startReceiverProcess();
    const spooledBefore = countOf(202);
    allow(9);
    await reach('deliveries spooled by the new receiver', () => countOf(202) >= spooledBefore + 4);
    sending = false;
    allow(0);
    await Promise.all(senders);
    // A repeat of an acknowledged delivery, while Temporal is still away.
    const repeated = [...acknowledged][0] ?? '';
    expect([200, 202]).toContain(await deliver(repeated));
    server = await startDevServer({ port, dbFile });

    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    const store = await openLocalStore(join(dataDir, 'store'));
    worker = await createVerificationWorker({
      connection: nativeConnection,
      taskQueue,
      identity,
      store,
      encryptionKeys: harnessEncryptionKeys(),
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
    });
    running = worker.run();
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({
      connection,
      dataConverter: encryptingDataConverter(harnessEncryptionKeys()),
    });
    try {
      for (const connectionId of CONNECTIONS) {
        const expected = [...acknowledged].filter((id) => connectionOf.get(id) === connectionId);
        const seen = await eventually(
          async () => {
            const events = await client.workflow
              .getHandle(connectionWorkflowId(TENANT, connectionId))
              .query(connectionEventsQuery)
              .catch(() => undefined);
            return events && expected.every((id) => events.events.some((event) => event.objectId === id))
              ? events
              : undefined;
          },
          `the acknowledged events of ${connectionId}`,
          60_000,
        );
        const ids = seen.events.map((event) => event.objectId);
        // Every acknowledged event once; nothing twice; nothing that was never sent.
        expect(new Set(ids).size).toBe(ids.length);
        expect(seen.total).toBe(ids.length);
        for (const id of ids) expect(connectionOf.get(id)).toBe(connectionId);
      }
      expect(acknowledged.size).toBeGreaterThanOrEqual(20);
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
      await identity.close();
      await store.close();
    }
  }, 180_000);
});
