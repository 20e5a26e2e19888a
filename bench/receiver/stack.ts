// The stack bench/receiver runs on: a dev server, the emulator in its own process (with a known
// agent key, so the bench can register the receiver's webhook), and in this process one worker
// of every workflow, the receiver and the IdvClient, all with the encrypting data converter.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, type Worker } from '@temporalio/worker';
import { createAgentClient } from '../../api/agent/agent-client';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { IdvClient } from '../../verification/client/idv-client';
import { encryptingDataConverter, failureConverterPath } from '../../codec/data-converter';
import { newEncryptionKeyEntry, parseEncryptionKeys } from '../../codec/encryption-keys';
import { type EmulatorControl, emulatorControl } from '../../emulator/control-client';
import { type EmulatorInfo } from '../../emulator/emulator';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { startDevServer } from '../../workers/dev/temporal-dev-server';
import { runtimeLogger } from '../../workers/logging';
import { type Receiver, startReceiver } from '../../workers/receiver/receiver-server';
import { ReceiverTokens } from '../../codec/receiver-tokens';
import { createVerificationWorker } from '../../workers/verification-worker';
import { spawnEmulator } from '../support/emulator-process';

/** The tenant whose deliveries the bench sends. */
export const TENANT = 'tenant-1';
const AGENT_KEY = 'agent_bench_tenant_1_0123456789abcdef';
const TASK_QUEUE = 'bench-receiver';

/** A call of the emulator's control API. */
export type Control = EmulatorControl;

/** Everything the measurements use. */
export interface BenchStack {
  client: Client;
  idv: IdvClient;
  worker: Worker;
  receiver: Receiver;
  tokens: ReceiverTokens;
  emulator: EmulatorInfo;
  profileId: string;
  control: Control;
  stop(): Promise<void>;
}

/** The production workflows bundled as the test harness does (our failure converter inside). */
async function bundleWorkflows(dataDir: string): Promise<string> {
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../package/workflows'),
    failureConverterPath,
    logger: runtimeLogger('ERROR'),
  });
  const codePath = join(dataDir, 'workflow-bundle.js');
  await writeFile(codePath, bundle.code);
  return codePath;
}

/** Registers the receiver as the tenant's Notification webhook at the emulated platform. */
async function registerWebhook(emulator: EmulatorInfo, url: string): Promise<void> {
  const platform = createAgentClient({ baseUrl: emulator.agentBaseUrl, apiKey: AGENT_KEY });
  await platform.createWebhook({ url, type: 'Notification' });
  await platform.close();
}

/** Starts the stack; the caller runs the worker (`worker.runUntil`) and calls `stop`. */
export async function startStack(): Promise<BenchStack> {
  const server = await startDevServer({});
  // The CLI takes agent keys (--agent-key TENANT=KEY), so the emulator keeps its own process.
  const spawned = await spawnEmulator(['--seed', '7', '--agent-key', `${TENANT}=${AGENT_KEY}`]);
  const emulator = spawned.info;
  const dataDir = await mkdtemp(join(tmpdir(), 'idv-bench-receiver-'));
  const encryptionKeys = parseEncryptionKeys(newEncryptionKeyEntry('bench'));
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, dataConverter: encryptingDataConverter(encryptionKeys) });
  const identity: IdentityClient = createIdentityClient({
    budget: 'unlimited',
    baseUrl: emulator.baseUrl,
    apiKey: emulator.apiKeys[0] ?? '',
  });
  const store: IdvStore = await openLocalStore(join(dataDir, 'store'));
  const worker = await createVerificationWorker({
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    identity,
    store,
    encryptionKeys,
    workflowBundle: { codePath: await bundleWorkflows(dataDir) },
  });
  const tokens = new ReceiverTokens(randomBytes(32).toString('hex'));
  const receiver = await startReceiver({
    client,
    taskQueue: TASK_QUEUE,
    tokens,
    spoolDir: join(dataDir, 'receiver-spool'),
    log: (line) => process.stderr.write(`receiver: ${line}\n`),
  });
  await registerWebhook(emulator, tokens.webhookUrl(receiver.url, TENANT));
  return {
    client,
    idv: new IdvClient({ client, store, taskQueue: TASK_QUEUE }),
    worker,
    receiver,
    tokens,
    emulator,
    profileId: emulator.verificationProfiles[0]?.id ?? '',
    control: emulatorControl(emulator.controlUrl),
    async stop() {
      await receiver.close();
      await identity.close();
      await store.close();
      await connection.close();
      await nativeConnection.close();
      await spawned.stop();
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
