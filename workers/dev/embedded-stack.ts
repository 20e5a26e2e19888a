import { type PollPlacementMode } from '../../verification/activities/poll-learning';
import { CallBudget, DEFAULT_API_RATE } from '../../api/http/call-budget';
import { DEFAULT_TASK_QUEUE, DEFAULT_WORKFLOW_CACHE } from '../config';
import { randomInt } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { receiverLog } from '../log/receiver-log';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { retriesWithinDeadline } from '../grpc-retries';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClients } from '../../api/agent/agent-clients';
import { encryptingDataConverter } from '../../codec/data-converter';
import { startReceiver } from '../receiver/receiver-server';
import { type OnboardingSettings } from '../../agent-platform/domain/onboarding-settings';
import { ReceiverTokens } from '../../codec/receiver-tokens';
import { createIdentityClient } from '../../api/identity/identity-client';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { type IdvStore } from '../../stores/idv-store';
import { openStore } from '../../stores/open-store';
import { startCodecServer } from '../../codec/codec-server';
import { TemporalKeyring } from '../../keyring/client';
import { type WorkerDeployment } from '../deployment-settings';
import { devCodecToken, devEncryptionKeys, devReceiverSecret } from '../encryption-keys-source';
import { assertPortFree } from './free-port';
import { createVerificationWorker } from '../verification-worker';
import { apiCallMetrics } from '../telemetry/api-metrics';
import { type DevServer, startDevServer } from './temporal-dev-server';
import { removeStackInfo, type StackInfo, writeStackInfo } from './stack-file';

/** Options of {@link startEmbeddedStack}. */
export interface EmbeddedStackOptions {
  /**
   * Holds the dev server's SQLite database, the stack file, the payload keys and (without
   * `storeUrl`) the store; readable by its owner only. @default './.data'
   */
  dataDir?: string;
  /** `postgres://…`: the worker's store; the data dir's otherwise. */
  storeUrl?: string;
  /** Temporal gRPC port. @default 7233 */
  temporalPort?: number;
  /** Temporal web UI port. @default 8233 */
  uiPort?: number;
  /** Emulator port; 0 picks a free one. @default 0 */
  emulatorPort?: number;
  /** Receiver port (agent deliveries, redirect returns); 0 picks a free one. @default 0 */
  receiverPort?: number;
  /** @default 'identity-verification' */
  taskQueue?: string;
  /** Run a worker in this process. @default true */
  worker?: boolean;
  /** A prebuilt workflow bundle for the worker (tests); bundled at start otherwise. */
  workflowBundle?: { codePath: string };
  /**
   * The receiver's onboarding settings; a function makes them from the emulator (its profile
   * id). @default none: every connection goes to `agentConnection`
   */
  onboarding?: OnboardingSettings | ((emulator: Emulator) => OnboardingSettings);
  /** The worker's calls per second to the emulator at most (`IDV_API_RATE`). @default DEFAULT_API_RATE */
  apiCallsPerSecond?: number;
  /** Workflows the worker keeps cached (`IDV_WORKFLOW_CACHE`). @default DEFAULT_WORKFLOW_CACHE */
  workflowCacheSize?: number;
  /** How polls are placed (`IDV_POLL_PLACEMENT`). @default 'learned' */
  pollPlacement?: PollPlacementMode;
  /** The orphan sweep's horizon (`IDV_ORPHAN_HORIZON`). @default 24 hours */
  orphanHorizonMs?: number;
  /** How often the keyring rotates (`IDV_KEY_ROTATION`). @default 1 hour */
  keyRotationMs?: number;
  /** The worker's deployment and build (`IDV_DEPLOYMENT`, `IDV_BUILD_ID`). @default the task queue's name, the package's version */
  deployment?: WorkerDeployment;
}

/** The running embedded stack of `idv dev`. */
export interface EmbeddedStack {
  info: StackInfo;
  dataDir: string;
  emulator: Emulator;
  stop(): Promise<void>;
}

/**
 * Starts the development stack: a Temporal dev server persisting to SQLite in the data dir with
 * its web UI and codec server, the emulator, the receiver, and a worker; publishes the addresses in `<dataDir>/stack.json`.
 */
export async function startEmbeddedStack(options: EmbeddedStackOptions = {}): Promise<EmbeddedStack> {
  const dataDir = resolve(options.dataDir ?? '.data');
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  await ownerOnlyDirectory(dataDir);
  const dbFile = join(dataDir, 'temporal.sqlite');
  await ownerOnlyIfPresent(dbFile);
  const stoppers: Array<() => Promise<void>> = [];
  let stopping: Promise<void> | undefined;
  const stopAll = () => {
    stopping ??= (async () => {
      for (const stop of [...stoppers].reverse()) await stop();
    })();
    return stopping;
  };
  try {
    // Before anything starts: a second stack on the same ports must not join the first.
    if (options.temporalPort !== 0) await assertPortFree(options.temporalPort ?? 7233, '127.0.0.1', '--port');
    if (options.uiPort !== 0) await assertPortFree(options.uiPort ?? 8233, '127.0.0.1', '--ui-port');
    if (options.receiverPort) await assertPortFree(options.receiverPort, '127.0.0.1', '--receiver-port');
    const encryptionKeys = await devEncryptionKeys(dataDir);
    const store: IdvStore = await openStore({ storeUrl: options.storeUrl, dataDir });
    stoppers.push(() => store.close());
    // The codec server starts before Temporal (whose UI names it); it reads the keyring once both
    // run, and allows the UI's origin once the UI's port is known.
    const temporalClient: { current?: Client } = {};
    const codec = await startCodecServer({
      encryptionKeys,
      keyring: new TemporalKeyring({
        client: () => {
          if (!temporalClient.current) throw new Error('Temporal is not started yet');
          return temporalClient.current;
        },
        taskQueue,
      }),
      store,
      token: await devCodecToken(dataDir),
      allowedOrigins: [],
    });
    stoppers.push(() => codec.close());
    const temporal: DevServer = await startDevServer({
      port: options.temporalPort ?? 7233,
      uiPort: options.uiPort ?? 8233,
      dbFile,
      uiCodecEndpoint: codec.endpoint(true),
    });
    stoppers.push(() => temporal.stop());
    if (temporal.uiUrl) {
      const { port } = new URL(temporal.uiUrl);
      codec.allowOrigins([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
    }
    // Its state lives in the data dir, so verifications running when the stack stopped carry on;
    // a seed of its own per start keeps new ids from repeating earlier ones.
    const emulator = await startEmulator({
      port: options.emulatorPort ?? 0,
      seed: randomInt(1, 2 ** 31),
      stateFile: join(dataDir, 'emulator-state.json'),
    });
    stoppers.push(() => emulator.close());
    const tokens = new ReceiverTokens(await devReceiverSecret(dataDir));
    const receiverConnection = await Connection.connect({
      address: temporal.address,
      interceptors: [retriesWithinDeadline()],
    });
    stoppers.push(() => receiverConnection.close());
    temporalClient.current = new Client({
      connection: receiverConnection,
      namespace: temporal.namespace,
      dataConverter: encryptingDataConverter(encryptionKeys),
    });
    const receiver = await startReceiver({
      client: temporalClient.current,
      taskQueue,
      tokens,
      spoolDir: join(dataDir, 'receiver-spool'),
      port: options.receiverPort ?? 0,
      ...(options.onboarding && {
        onboarding:
          typeof options.onboarding === 'function' ? options.onboarding(emulator) : options.onboarding,
      }),
      log: receiverLog(),
      meter: Runtime.instance().metricMeter,
    });
    stoppers.push(() => receiver.close());
    const profile = emulator.verificationProfiles[0];
    const info: StackInfo = {
      pid: process.pid,
      temporalAddress: temporal.address,
      namespace: temporal.namespace,
      ...(temporal.uiUrl ? { temporalUiUrl: temporal.uiUrl } : {}),
      codecEndpoint: codec.endpoint(false),
      taskQueue,
      receiverUrl: receiver.url,
      emulator: {
        baseUrl: emulator.baseUrl,
        agentBaseUrl: emulator.agentBaseUrl,
        controlUrl: emulator.controlUrl,
        apiKey: emulator.apiKeys[0] ?? '',
        verificationProfileId: profile?.id ?? '',
        agentKeys: emulator.agentKeys,
      },
    };
    if (options.worker !== false) {
      const connection = await NativeConnection.connect({ address: temporal.address });
      const identity = createIdentityClient({
        baseUrl: emulator.baseUrl,
        apiKey: info.emulator?.apiKey ?? '',
        onCall: apiCallMetrics(),
        budget: new CallBudget({ callsPerSecond: options.apiCallsPerSecond ?? DEFAULT_API_RATE }),
      });
      const agentClients = new AgentClients({ keys: emulator.agentKeys, baseUrl: emulator.agentBaseUrl });
      const worker = await createVerificationWorker({
        connection,
        taskQueue,
        identity,
        store,
        encryptionKeys,
        tuning: { maxCachedWorkflows: options.workflowCacheSize ?? DEFAULT_WORKFLOW_CACHE },
        ...(options.pollPlacement ? { pollPlacement: options.pollPlacement } : {}),
        ...(options.orphanHorizonMs ? { orphans: { horizonMs: options.orphanHorizonMs } } : {}),
        ...(options.keyRotationMs ? { keyring: { rotateEveryMs: options.keyRotationMs } } : {}),
        ...(options.deployment ? { deployment: options.deployment } : {}),
        promote: 'on-start',
        agent: {
          clients: agentClients,
          receiverWebhookUrl: (tenant) => tokens.webhookUrl(receiver.url, tenant),
        },
        ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
      });
      const running = worker.run();
      stoppers.push(async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running.catch(() => undefined);
        await agentClients.close();
        identity.budget?.close();
        await identity.close();
        await connection.close();
      });
    }
    await writeStackInfo(dataDir, info);
    stoppers.push(() => removeStackInfo(dataDir));
    return { info, dataDir, emulator, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The data dir: created if needed, and made readable by its owner only (it holds keys and history). */
async function ownerOnlyDirectory(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  await chmod(path, 0o700);
}

/** A database file from an earlier start (the server makes new ones owner-only itself). */
async function ownerOnlyIfPresent(path: string): Promise<void> {
  await chmod(path, 0o600).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}
