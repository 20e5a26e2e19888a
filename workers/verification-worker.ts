import { join } from 'node:path';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index';
import { LocalBlobStore } from '../activities/stores/blob-store';
import { FileSessionVault } from '../activities/stores/session-vault';
import { type ResultLimits } from '../activities/result-limits';
import { type IdentityClient } from '../api/identity/identity-client';
import { encryptingDataConverter } from '../codec/data-converter';
import { type EncryptionKey } from '../codec/encryption-keys';

/** Options of {@link createVerificationWorker}. */
export interface VerificationWorkerOptions {
  connection: NativeConnection;
  /** @default 'default' */
  namespace?: string;
  taskQueue: string;
  identity: IdentityClient;
  /** Holds the session vault (`vault/`) and the attachment blob store (`blobs/`). */
  dataDir: string;
  /** Bounds of results fetching (attachment size and count, identity field size). @default defaultResultLimits */
  resultLimits?: Partial<ResultLimits>;
  /** Payload encryption keys, newest first (every payload and failure text is encrypted). */
  encryptionKeys: readonly EncryptionKey[];
  /**
   * A prebuilt workflow bundle, built with `failureConverterPath` from `codec/data-converter`;
   * the workflows are bundled at start when absent.
   */
  workflowBundle?: { codePath: string };
}

/** A worker for the verification workflows and their activities. */
export async function createVerificationWorker(options: VerificationWorkerOptions): Promise<Worker> {
  const activities = createActivities({
    identity: options.identity,
    vault: new FileSessionVault(join(options.dataDir, 'vault')),
    blobs: new LocalBlobStore(join(options.dataDir, 'blobs')),
    ...(options.resultLimits ? { resultLimits: options.resultLimits } : {}),
  });
  return await Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    activities,
    dataConverter: encryptingDataConverter(options.encryptionKeys),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: require.resolve('../workflows/index') }),
  });
}
