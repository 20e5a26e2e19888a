// Instant users: what the orchestration costs per verification, against a bare one-activity
// workflow on the same server (worker in this process, so both run under the same conditions).
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { CallBudget } from '../../api/http/call-budget';
import { createIdentityClient } from '../../api/identity/identity-client';
import { createActivities } from '../../workers/activities';
import { IdvClient } from '../../verification/client/idv-client';
import { DataKeys } from '../../codec/data-keys';
import { TemporalKeyring } from '../../keyring/client';
import { encryptingDataConverter, failureConverterPath } from '../../codec/data-converter';
import { parseEncryptionKeys } from '../../codec/encryption-keys';
import { runtimeLogger } from '../../workers/logging';
import { testProviderRequest } from '../../test/harness/requests';
import { inLanes } from '../receiver/deliveries';
import { type BenchEmulator, processUsage, type ScaleStack } from './stack';
import { promoteBuild } from '../../workers/deployment';
import { versionedWorker, workerDeployment } from '../../workers/deployment-settings';

export interface InstantVariant {
  name: string;
  count: number;
  wallSeconds: number;
  perSecond: number;
  /** CPU of this process (worker and client) per verification, ms. */
  workerCpuMs: number;
  /** CPU of the Temporal dev server per verification, ms. */
  serverCpuMs: number;
}

export async function runInstant(options: {
  stack: ScaleStack;
  emulator: BenchEmulator;
  count: number;
  inFlight: number;
  apiRate: number;
}): Promise<InstantVariant[]> {
  const { stack, emulator } = options;
  await emulator.control('PUT', '/script', { outcome: 'by-input', latencyMs: 0 });
  const encryptionKeys = parseEncryptionKeys(stack.encryptionKeysEntry);
  const taskQueue = 'bench-scale-instant';
  const nativeConnection = await NativeConnection.connect({ address: stack.server.address });
  const connection = await Connection.connect({ address: stack.server.address });
  const client = new Client({ connection, dataConverter: encryptingDataConverter(encryptionKeys) });
  const budget = new CallBudget({ callsPerSecond: options.apiRate });
  const identity = createIdentityClient({
    baseUrl: emulator.info.baseUrl,
    apiKey: emulator.info.apiKeys[0] ?? '',
    budget,
  });
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../sessions/workflows'),
    failureConverterPath,
    logger: runtimeLogger('ERROR'),
  });
  const worker = await Worker.create({
    ...versionedWorker(workerDeployment(taskQueue)),
    connection: nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: encryptingDataConverter(encryptionKeys),
    activities: {
      ...createActivities({
        identity,
        vault: stack.store.vault,
        blobs: stack.store.blobs,
        records: stack.store.records,
        dataKeys: new DataKeys(stack.store.dataKeys, new TemporalKeyring({ client, taskQueue })),
      }),
      noop: () => Promise.resolve(),
    },
  });
  const idv = new IdvClient({ client, store: stack.store, taskQueue });
  const serverPid = stack.server.pid as number;
  const variants: InstantVariant[] = [];
  const measure = async (name: string, one: (i: number) => Promise<void>) => {
    const cpu0 = process.cpuUsage();
    const server0 = processUsage(serverPid).cpuSeconds;
    const t0 = Date.now();
    await inLanes(options.count, options.inFlight, one);
    const wallSeconds = (Date.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    variants.push({
      name,
      count: options.count,
      wallSeconds,
      perSecond: options.count / wallSeconds,
      workerCpuMs: (cpu.user + cpu.system) / 1000 / options.count,
      serverCpuMs: ((processUsage(serverPid).cpuSeconds - server0) * 1000) / options.count,
    });
  };
  const stamp = Date.now();
  await promoteBuild(client, workerDeployment(taskQueue), { onlyIfNone: true, beforePolling: true });
  await worker.runUntil(async () => {
    await measure('verification (instant user)', async (i) => {
      const { handle } = await idv.startVerification(
        testProviderRequest(`bench-instant-${stamp}-${i}`, emulator.info.verificationProfiles[0]?.id ?? '', {
          redactAfter: 'never',
        }),
      );
      const outcome = await handle.result();
      if (outcome.status !== 'succeeded') throw new Error(`instant verification ended ${outcome.status}`);
    });
    await measure('bare one-activity workflow', async (i) => {
      await client.workflow.execute('bareWorkflow', { taskQueue, workflowId: `bench-bare-${stamp}-${i}` });
    });
  });
  budget.close();
  await identity.close();
  await connection.close();
  await nativeConnection.close();
  return variants;
}
