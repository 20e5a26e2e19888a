import { randomInt, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { AgentClients } from '../../api/agent/agent-clients';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { encryptingDataConverter } from '../../codec/data-converter';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { emulatorControl } from '../../emulator/control-client';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { IdvClient } from '../../verification/client/idv-client';
import { type VerificationRequest } from '../../verification/domain/verification';
import { createVerificationWorker } from '../../workers/verification-worker';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { testProviderRequest } from '../harness/requests';
import { uniqueTaskQueue } from '../harness/worker';

/** One deployment on a unique task queue whose builds a test starts and stops. */
export interface Builds {
  emulator: Emulator;
  client: Client;
  store: IdvStore;
  idv: IdvClient;
  taskQueue: string;
  deployment: string;
  control: ReturnType<typeof emulatorControl>;
  request(name: string, overrides?: Partial<VerificationRequest>): VerificationRequest;
  /** Starts a worker of `buildId` (the run's bundle), optionally on a store of its own. */
  start(
    buildId: string,
    options?: { promote?: 'first-install' | 'on-start'; store?: IdvStore },
  ): Promise<Worker>;
  /** Stops every worker of `buildId`. */
  stop(buildId: string): Promise<void>;
  /** The build a workflow's latest task ran on. */
  buildOf(workflowId: string): Promise<string | undefined>;
  expectRanOn(workflowId: string, buildId: string): Promise<void>;
}

export function useBuilds(prefix: string): () => Builds {
  let builds: Builds | undefined;
  let identity: IdentityClient;
  let agentClients: AgentClients;
  let connection: Connection;
  let dataDir: string;
  const workers: Array<{
    buildId: string;
    worker: Worker;
    running: Promise<void>;
    native: NativeConnection;
  }> = [];

  beforeAll(async () => {
    const emulator = await startEmulator({ seed: randomInt(1, 2 ** 31) });
    identity = createIdentityClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKeys[0] ?? '',
      budget: 'unlimited',
    });
    agentClients = new AgentClients({ keys: emulator.agentKeys, baseUrl: emulator.agentBaseUrl });
    dataDir = await mkdtemp(join(tmpdir(), `idv-${prefix}-`));
    const store = await openLocalStore(dataDir);
    connection = await Connection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    const client = new Client({
      connection,
      dataConverter: encryptingDataConverter(harnessEncryptionKeys()),
    });
    const taskQueue = uniqueTaskQueue(prefix);
    const deployment = `${prefix}-${randomUUID().slice(0, 8)}`;
    const buildOf = async (workflowId: string) => {
      const { workflowExecutionInfo } = await client.workflowService.describeWorkflowExecution({
        namespace: client.options.namespace,
        execution: { workflowId },
      });
      return workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
    };
    builds = {
      emulator,
      client,
      store,
      idv: new IdvClient({ client, store, taskQueue }),
      taskQueue,
      deployment,
      control: emulatorControl(emulator.controlUrl),
      request: (name, overrides = {}) =>
        testProviderRequest(
          `${prefix}-${name}-${Date.now()}`,
          emulator.verificationProfiles[0]?.id ?? '',
          overrides,
        ),
      async start(buildId, options = {}) {
        const native = await NativeConnection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
        const worker = await createVerificationWorker({
          connection: native,
          taskQueue,
          identity,
          store: options.store ?? store,
          encryptionKeys: harnessEncryptionKeys(),
          workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
          deployment: { name: deployment, buildId },
          orphans: { horizonMs: 5_000 },
          agent: { clients: agentClients },
          promote: options.promote ?? 'first-install',
        });
        workers.push({ buildId, worker, running: worker.run(), native });
        return worker;
      },
      async stop(buildId) {
        for (const entry of workers.filter((w) => w.buildId === buildId)) {
          if (entry.worker.getState() === 'RUNNING') entry.worker.shutdown();
          await entry.running.catch(() => undefined);
        }
      },
      buildOf,
      async expectRanOn(workflowId, buildId) {
        await eventually(
          async () => ((await buildOf(workflowId)) === buildId ? true : undefined),
          `${workflowId} on build ${buildId}`,
        );
      },
    };
  });

  afterAll(async () => {
    for (const { worker, running, native } of workers) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await native.close();
    }
    await agentClients?.close();
    await identity?.close();
    await builds?.emulator.close();
    await connection?.close();
    await builds?.store.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  return () => {
    if (!builds) throw new Error('useBuilds: not started');
    return builds;
  };
}

/** Resolves to `promise`'s value, or to `{ timedOut: true }` after `ms` (so a hang fails an expectation, not the test's timeout). */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
): Promise<T | { timedOut: true; ms: number }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ timedOut: true; ms: number }>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true, ms }), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error's name and message, or the value: so a rejection shows in an expectation's diff. */
export async function settled<T>(promise: Promise<T>): Promise<T | { error: string }> {
  return await promise.catch((error: unknown) => ({
    error: `${(error as Error).name}: ${(error as Error).message}`.slice(0, 300),
  }));
}
