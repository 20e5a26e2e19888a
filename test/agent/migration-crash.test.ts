import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createAgentClient } from '../../api/agent/agent-client';
import { createIdentityClient } from '../../api/identity/identity-client';
import { MigrationClient } from '../../agent-platform/client/migration-client';
import { encryptingDataConverter } from '../../codec/data-converter';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { emulatorControl } from '../../emulator/control-client';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { uniqueTaskQueue } from '../harness/worker';
import { startWorkerProcess, type WorkerProcess, workerProcessEnv } from '../harness/worker-process';

const TENANT = 'tenant-k';
const AGENT_KEY = 'agent_key_tenant_k_0123456789';

// A migration whose worker is SIGKILLed in the middle of the cut-over resumes on a new worker
// and finishes, writing nothing twice: every write is idempotent and each step is in history.
describe('platformMigration: the worker killed mid-migration', () => {
  let dataDir: string;
  let emulator: Emulator;
  let worker: WorkerProcess | undefined;
  let connection: Connection | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-migration-crash-'));
    emulator = await startEmulator({ seed: 11, agentKeys: { [TENANT]: AGENT_KEY } });
  });
  afterAll(async () => {
    await worker?.kill();
    await connection?.close();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('resumes without duplicate writes', async () => {
    const taskQueue = uniqueTaskQueue('migration-crash');
    const env = {
      ...workerProcessEnv(emulator, taskQueue, dataDir),
      IDV_AGENT_KEYS: `${TENANT}=${AGENT_KEY}`,
      IDV_AGENT_BASE_URL: emulator.agentBaseUrl,
    };
    const platform = createAgentClient({ baseUrl: emulator.agentBaseUrl, apiKey: AGENT_KEY });
    for (const name of ['crm', 'erp', 'helpdesk', 'billing'])
      await platform.createWebhook({ url: `https://hooks.example/${name}`, type: 'Notification' });
    const control = emulatorControl(emulator.controlUrl);
    // Each disable takes a while, so the kill lands in the middle of the cut-over.
    await control('PUT', '/faults', { operation: 'DisableWebhook', latencyMs: 1_500 });
    const counter = async (operation: string) =>
      ((await control('GET', '/counters')).byOperation as Record<string, number>)[operation] ?? 0;

    worker = await startWorkerProcess(env);
    connection = await Connection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    const client = new Client({
      connection,
      dataConverter: encryptingDataConverter(harnessEncryptionKeys()),
    });
    const migrations = new MigrationClient({ client, taskQueue });
    const redirectUri = 'https://crash.example/verified/{policy}';
    const { handle } = await migrations.start({
      tenant: TENANT,
      apply: true,
      target: {
        authUrl: 'https://auth.example',
        schemaBaseUrl: 'https://schemas.example',
        clientId: 'crash-client',
        ecosystem: 'crash',
        redirectUri,
      },
    });
    await eventually(
      async () => ((await counter('DisableWebhook')) >= 2 ? true : undefined),
      'the cut-over to be under way',
    );
    await worker.kill();
    expect((await handle.describe()).status.name).toBe('RUNNING');
    worker = await startWorkerProcess(env);

    const report = await migrations.result(handle);
    expect(report.outcome).toBe('applied');
    expect(report.webhooks.map((w) => w.action)).toEqual(['disabled', 'disabled', 'disabled', 'disabled']);
    expect((await platform.listWebhooks()).map((w) => w.enabled)).toEqual([false, false, false, false]);
    // One create per change, however many attempts the kill caused; a disable sets a state (a
    // PUT), and the attempt the kill cut short sends it again.
    expect(await counter('DisableWebhook')).toBeGreaterThanOrEqual(4);
    expect(await counter('AddRedirectUri')).toBe(1);
    expect(await counter('CreateWebhook')).toBe(4);
    const identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    const uris = (await identity.redirectUris.list({ pageSize: 100 })).uris.map((u) => u.uri);
    expect(uris).toEqual([redirectUri.replace('{policy}', 'employee-check')]);
    await identity.close();
    await platform.close();
    // Two worker processes start one after the other, each waiting to join the call budget: about a
    // minute on a loaded CI machine, so the bound is the test's own.
  }, 180_000);
});
