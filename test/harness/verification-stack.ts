import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { IdvClient } from '../../verification/client/idv-client';
import { type VerificationInput, type VerificationRequest } from '../../verification/domain/verification';
import { prepareVerificationInput } from '../../verification/client/prepare-input';
import { DataKeys } from '../../codec/data-keys';
import { TemporalKeyring } from '../../keyring/client';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../emulator/emulator';
import { emulatorControl } from '../../emulator/control-client';
import { createVerificationWorker, type WorkerTuning } from '../../workers/verification-worker';
import { CallBudget } from '../../api/http/call-budget';
import { encryptingDataConverter } from '../../codec/data-converter';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from './env';
import { testProviderRequest } from './requests';
import { uniqueTaskQueue } from './worker';
import { AgentClients } from '../../api/agent/agent-clients';
import { WebhookRegistryClient } from '../../agent-platform/client/webhook-registry-client';
import { type WebhookRegistrySettings } from '../../agent-platform/domain/webhook-registry-input';
import { type Receiver, startReceiver } from '../../workers/receiver/receiver-server';
import { type OnboardingSettings } from '../../agent-platform/domain/onboarding-settings';
import { ReceiverTokens } from '../../codec/receiver-tokens';
import { type TracingOptions } from '../../workers/telemetry/tracing';

/** Everything an end-to-end verification test needs, for one test file. */
export interface VerificationStack {
  emulator: Emulator;
  idv: IdvClient;
  client: Client;
  identity: IdentityClient;
  taskQueue: string;
  dataDir: string;
  /** The worker's store (and the client's): the data dir's, or the one `options.store` opened. */
  store: IdvStore;
  /** The data keys of that store, under the run's payload keys. */
  dataKeys: DataKeys;
  profileId: string;
  /** Calls the emulator's control API. */
  control(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown>>;
  /** A request for the test provider with a unique reference. */
  request(overrides?: Partial<VerificationRequest>): VerificationRequest;
  /** The workflow input of a request, as the client makes it (data key created, providerInput sealed). */
  prepare(request: VerificationRequest): Promise<VerificationInput>;
  /** The receiver (started with `options.receiver`): agent deliveries and redirect returns. */
  receiver: Receiver | undefined;
  /** The receiver's secret (what a business service makes return URLs with). */
  receiverSecret: string;
  /** The receiver's path tokens, from that secret. */
  tokens: ReceiverTokens;
  /** The tenants' webhook registries, on this stack's task queue. */
  webhooks: WebhookRegistryClient;
  /** Starts a fresh worker (after the previous one was stopped). */
  startWorker(): Promise<void>;
  /** Stops the worker, leaving workflows where they are. */
  stopWorker(): Promise<void>;
}

let counter = 0;

/**
 * Per test file: an emulator, a worker of the verification workflows on a unique task queue of
 * the shared dev server (the run's workflow bundle), and an {@link IdvClient}.
 */
export function useVerificationStack(
  emulatorOptions: EmulatorOptions = {},
  options: {
    store?: (dataDir: string) => Promise<IdvStore>;
    /** Start a receiver, and give the worker the emulator's tenants and the receiver's URL. */
    receiver?: boolean;
    /** Settings of the registries the stack's webhook client starts. */
    registrySettings?: WebhookRegistrySettings;
    /** The receiver's onboarding settings, made from the emulator's verification profile. */
    onboarding?: (profileId: string) => OnboardingSettings;
    /** The receiver's log lines. @default none */
    receiverLog?: (line: string) => void;
    /** The worker's tracing (activities only: the run's bundle has no workflow interceptors). */
    tracing?: TracingOptions;
    /** The worker's Temporal tuning. */
    tuning?: WorkerTuning;
    /** The worker's call budget (calls per second to the emulator). @default unlimited */
    apiCallsPerSecond?: number;
    /** How long the worker's identity client waits for an answer's headers. @default 30 s */
    answerTimeoutMs?: number;
    /** The orphan sweep's horizon. @default 15 s (sweeps end soon after the tests that need them) */
    orphanHorizonMs?: number;
  } = {},
): () => VerificationStack {
  let stack: VerificationStack | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let nativeConnection: NativeConnection | undefined;
  let connection: Connection | undefined;
  let agentClients: AgentClients | undefined;

  beforeAll(async () => {
    const address = harnessValue(harnessEnv.temporalAddress);
    // A seed of its own: the emulator's ids come from it, and session ids name workflows
    // (`idv-redact-<session>`) on the dev server every test file shares. With one seed for all,
    // a redaction left waiting by one file took the id of another file's first session.
    const emulator = await startEmulator({ seed: randomInt(1, 2 ** 31), ...emulatorOptions });
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-e2e-'));
    const taskQueue = uniqueTaskQueue('verify');
    nativeConnection = await NativeConnection.connect({ address });
    connection = await Connection.connect({ address });
    const client = new Client({
      connection,
      dataConverter: encryptingDataConverter(harnessEncryptionKeys()),
    });
    const identity = createIdentityClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKeys[0] ?? '',
      budget: options.apiCallsPerSecond
        ? new CallBudget({ callsPerSecond: options.apiCallsPerSecond })
        : 'unlimited',
      ...(options.answerTimeoutMs ? { headersTimeoutMs: options.answerTimeoutMs } : {}),
    });
    const profileId = emulator.verificationProfiles[0]?.id ?? '';
    const store = await (options.store ?? openLocalStore)(dataDir);
    const dataKeys = new DataKeys(store.dataKeys, new TemporalKeyring({ client, taskQueue }));
    const receiverSecret = randomBytes(32).toString('hex');
    const tokens = new ReceiverTokens(receiverSecret);
    const receiver = options.receiver
      ? await startReceiver({
          client,
          taskQueue,
          tokens,
          spoolDir: join(dataDir, 'receiver-spool'),
          ...(options.onboarding ? { onboarding: options.onboarding(profileId) } : {}),
          ...(options.receiverLog ? { log: options.receiverLog } : {}),
        })
      : undefined;
    agentClients = new AgentClients({ keys: emulator.agentKeys, baseUrl: emulator.agentBaseUrl });
    const startWorker = async () => {
      worker = await createVerificationWorker({
        connection: nativeConnection as NativeConnection,
        taskQueue,
        identity,
        store,
        encryptionKeys: harnessEncryptionKeys(),
        workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
        ...(options.tracing ? { tracing: options.tracing } : {}),
        ...(options.tuning ? { tuning: options.tuning } : {}),
        orphans: { horizonMs: options.orphanHorizonMs ?? 15_000 },
        // Rotations on request only; a short refresh, so one requested ends soon.
        keyring: { refreshMs: 300 },
        agent: {
          clients: agentClients as AgentClients,
          ...(receiver
            ? { receiverWebhookUrl: (tenant: string) => tokens.webhookUrl(receiver.url, tenant) }
            : {}),
        },
      });
      running = worker.run();
    };
    const stopWorker = async () => {
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running;
      worker = undefined;
    };
    await startWorker();
    stack = {
      emulator,
      idv: harnessIdvClient(client, store, taskQueue),
      client,
      identity,
      taskQueue,
      dataDir,
      store,
      dataKeys,
      profileId,
      receiver,
      receiverSecret,
      tokens,
      webhooks: new WebhookRegistryClient({
        client,
        taskQueue,
        ...(options.registrySettings ? { settings: options.registrySettings } : {}),
      }),
      prepare: (request) => prepareVerificationInput(request, dataKeys),
      control: emulatorControl(emulator.controlUrl),
      request(overrides = {}) {
        counter += 1;
        return testProviderRequest(`test-${process.pid}-${Date.now()}-${counter}`, profileId, overrides);
      },
      startWorker,
      stopWorker,
    };
  });

  afterAll(async () => {
    await stack?.receiver?.close();
    await stack?.stopWorker();
    await agentClients?.close();
    stack?.identity.budget?.close();
    await stack?.identity.close();
    await stack?.emulator.close();
    await connection?.close();
    await nativeConnection?.close();
    await stack?.store.close();
    if (stack) await rm(stack.dataDir, { recursive: true, force: true });
  });

  return () => {
    if (!stack) throw new Error('useVerificationStack: not started');
    return stack;
  };
}

/** An {@link IdvClient} with the run's payload keys, on a given store and task queue. */
export function harnessIdvClient(client: Client, store: IdvStore, taskQueue: string): IdvClient {
  return new IdvClient({ client, store, taskQueue });
}
