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
import { connectionWorkflowId } from '../../domain/agent-deliveries';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { openLocalStore } from '../../stores/local/local-store';
import { freePort } from '../../workers/dev/free-port';
import { type DevServer, startDevServer } from '../../workers/dev/temporal-dev-server';
import { TenantTokens } from '../../workers/receiver/tenant-tokens';
import { createVerificationWorker } from '../../workers/verification-worker';
import { connectionEventsQuery } from '../../workflows/agent-messages';
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
      url: new TenantTokens(secret).webhookUrl(`http://127.0.0.1:${receiverPort}`, TENANT),
      type: 'Notification',
    });
    await platform.close();

    const sent = new Map<string, string[]>(CONNECTIONS.map((connection) => [connection, []]));
    let n = 0;
    const deliver = async (again?: { connection: string; objectId: string }) => {
      const connection = again?.connection ?? CONNECTIONS[n % CONNECTIONS.length] ?? '';
      const objectId = again?.objectId ?? `event-${(n += 1)}`;
      if (!again) sent.get(connection)?.push(objectId);
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
      return deliveries[0]?.status;
    };

    for (let i = 0; i < 6; i += 1) expect(await deliver()).toBe(200);
    await server.stop();
    for (let i = 0; i < 10; i += 1) expect(await deliver()).toBe(202);
    expect(await deliver({ connection: 'conn-b', objectId: 'event-8' })).toBe(200);
    await receiver.kill();
    receiver = await startReceiverProcess();
    for (let i = 0; i < 4; i += 1) expect(await deliver()).toBe(202);
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
        const expected = sent.get(connectionId) ?? [];
        const seen = await eventually(
          async () => {
            const events = await client.workflow
              .getHandle(connectionWorkflowId(TENANT, connectionId))
              .query(connectionEventsQuery)
              .catch(() => undefined);
            return events && events.total >= expected.length ? events : undefined;
          },
          `the events of ${connectionId}`,
          60_000,
        );
        expect(seen.total).toBe(expected.length);
        expect(seen.events.map((event) => event.objectId).sort()).toEqual([...expected].sort());
      }
      expect(n).toBe(20);
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
