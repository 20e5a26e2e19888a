import { Client, Connection } from '@temporalio/client';
import { createIdentityClient, type IdentityClient } from '../api/identity/identity-client';
import { type EncryptionKey } from '../codec/encryption-keys';
import { ConfigError, type IdvConfig, loadConfig } from '../workers/config';
import { encryptingDataConverter } from '../codec/data-converter';
import { noStackReason, readStackState, type StackInfo } from '../workers/dev/stack-file';
import { requireEncryptionKeys } from '../workers/encryption-keys-source';
import { temporalTarget } from '../workers/temporal-target';
import { retriesWithinDeadline } from '../workers/grpc-retries';
import { type IdvStore } from '../stores/idv-store';
import { openStore, StoreUnavailableError } from '../stores/open-store';
import { IdvClient } from '../verification/client/idv-client';
import { CommandFailedError } from './command';

/** What commands that talk to Temporal or the service get. */
export interface Connected {
  idv: IdvClient;
  /** The store the client uses (closed by `close`). */
  store: IdvStore;
  stack: StackInfo | undefined;
  close(): Promise<void>;
}

/** The configuration of a command; invalid configuration is one line. */
export function commandConfig(env: NodeJS.ProcessEnv): IdvConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CommandFailedError(error.message);
    throw error;
  }
}

/** The payload keys of a command: `IDV_ENCRYPTION_KEYS`, else those of the `idv dev` stack it uses. */
export async function commandEncryptionKeys(
  settings: IdvConfig,
  stack: StackInfo | undefined,
): Promise<EncryptionKey[]> {
  try {
    return await requireEncryptionKeys(settings.encryptionKeys, stack ? settings.dataDir : undefined);
  } catch (error) {
    if (error instanceof ConfigError) throw new CommandFailedError(error.message);
    throw error;
  }
}

/** The store of a command: `IDV_STORE_URL`, else the data dir's; a failure to open it is one line. */
export async function commandStore(settings: IdvConfig): Promise<IdvStore> {
  try {
    return await openStore({ storeUrl: settings.storeUrl, dataDir: settings.dataDir });
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new CommandFailedError(error.message);
    throw error;
  }
}

/**
 * Connects to Temporal: the cluster of `TEMPORAL_ADDRESS` / `TEMPORAL_PROFILE` (envconfig) when
 * set, otherwise the stack that `idv dev` started (addresses from the data dir).
 */
export async function connectTemporal(env: NodeJS.ProcessEnv): Promise<Connected> {
  const settings = commandConfig(env);
  const state = await readStackState(settings.dataDir);
  const stack = state.live;
  const target = temporalTarget(settings, env, stack);
  if (!target) {
    throw new CommandFailedError(
      `${noStackReason(settings.dataDir, state)}: start \`idv dev\`, or set TEMPORAL_ADDRESS`,
    );
  }
  const encryptionKeys = await commandEncryptionKeys(settings, stack);
  const store = await commandStore(settings);
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...target.connectionOptions,
      interceptors: [retriesWithinDeadline()],
    });
  } catch (error) {
    await store.close();
    throw new CommandFailedError(
      `cannot reach Temporal at ${target.connectionOptions.address ?? 'its default address'}${stack ? ` (the stack in ${settings.dataDir})` : ''}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { namespace } = target;
  const client = new Client({
    connection,
    dataConverter: encryptingDataConverter(encryptionKeys),
    ...(namespace ? { namespace } : {}),
  });
  return {
    idv: new IdvClient({
      client,
      store,
      taskQueue: env.IDV_TASK_QUEUE ? settings.taskQueue : (stack?.taskQueue ?? settings.taskQueue),
    }),
    store,
    stack,
    close: async () => {
      await connection.close();
      await store.close();
    },
  };
}

/** The identity service client: the real service with IDV_API_KEY, else the running stack's emulator. */
export async function connectIdentity(
  env: NodeJS.ProcessEnv,
): Promise<{ identity: IdentityClient; stack: StackInfo | undefined }> {
  const settings = commandConfig(env);
  if (settings.identity) return { identity: createIdentityClient(settings.identity), stack: undefined };
  const state = await readStackState(settings.dataDir);
  const stack = state.live;
  if (!stack?.emulator) {
    throw new CommandFailedError(
      `${noStackReason(settings.dataDir, state)}: start \`idv dev\`, or set IDV_API_KEY`,
    );
  }
  return {
    identity: createIdentityClient({ baseUrl: stack.emulator.baseUrl, apiKey: stack.emulator.apiKey }),
    stack,
  };
}
