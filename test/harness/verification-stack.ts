import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { request } from 'undici';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { IdvClient } from '../../client/idv-client';
import { type VerificationRequest } from '../../domain/verification';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../emulator/emulator';
import { createVerificationWorker } from '../../workers/verification-worker';
import { encryptingDataConverter } from '../../codec/data-converter';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from './env';
import { uniqueTaskQueue } from './worker';

/** Everything an end-to-end verification test needs, for one test file. */
export interface VerificationStack {
  emulator: Emulator;
  idv: IdvClient;
  client: Client;
  identity: IdentityClient;
  taskQueue: string;
  dataDir: string;
  profileId: string;
  /** Calls the emulator's control API. */
  control(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown>>;
  /** A request for the test provider with a unique reference. */
  request(overrides?: Partial<VerificationRequest>): VerificationRequest;
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
export function useVerificationStack(emulatorOptions: EmulatorOptions = {}): () => VerificationStack {
  let stack: VerificationStack | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let nativeConnection: NativeConnection | undefined;
  let connection: Connection | undefined;

  beforeAll(async () => {
    const address = harnessValue(harnessEnv.temporalAddress);
    const emulator = await startEmulator({ seed: 11, ...emulatorOptions });
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-e2e-'));
    const taskQueue = uniqueTaskQueue('verify');
    nativeConnection = await NativeConnection.connect({ address });
    connection = await Connection.connect({ address });
    const client = new Client({
      connection,
      dataConverter: encryptingDataConverter(harnessEncryptionKeys()),
    });
    const identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    const profileId = emulator.verificationProfiles[0]?.id ?? '';
    const startWorker = async () => {
      worker = await createVerificationWorker({
        connection: nativeConnection as NativeConnection,
        taskQueue,
        identity,
        dataDir,
        encryptionKeys: harnessEncryptionKeys(),
        workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
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
      idv: new IdvClient({ client, taskQueue }),
      client,
      identity,
      taskQueue,
      dataDir,
      profileId,
      async control(method, path, body) {
        const response = await request(`${emulator.controlUrl}${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.body.text();
        if (response.statusCode >= 400)
          throw new Error(`control ${method} ${path}: ${response.statusCode} ${text}`);
        return text ? (JSON.parse(text) as Record<string, unknown>) : {};
      },
      request(overrides = {}) {
        counter += 1;
        return {
          reference: `test-${process.pid}-${Date.now()}-${counter}`,
          verificationProfileId: profileId,
          provider: 'trinsic-test-database-lookup',
          capabilities: ['PollResult'],
          providerInput: {
            'trinsic-test-database-lookup': {
              givenName: 'Ada',
              familyName: 'Lovelace',
              identityCode: '123456',
            },
          },
          ...overrides,
        };
      },
      startWorker,
      stopWorker,
    };
  });

  afterAll(async () => {
    await stack?.stopWorker();
    await stack?.identity.close();
    await stack?.emulator.close();
    await connection?.close();
    await nativeConnection?.close();
    if (stack) await rm(stack.dataDir, { recursive: true, force: true });
  });

  return () => {
    if (!stack) throw new Error('useVerificationStack: not started');
    return stack;
  };
}
