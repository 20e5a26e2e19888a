import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { harnessEnv, harnessValue } from './env';
import { promoteBuild } from '../../workers/deployment';
import { versionedWorker, workerDeployment } from '../../workers/deployment-settings';

/** What a test body gets from {@link withWorker}. */
export interface WorkerContext {
  client: Client;
  taskQueue: string;
  worker: Worker;
}

/** Options of {@link withWorker}. */
export interface WithWorkerOptions {
  /** Activities the worker serves. @default {} */
  activities?: object;
  /** Task queue; a unique one per call by default so tests never steal each other's tasks. */
  taskQueue?: string;
}

/** A task queue name unique to this call. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Runs `body` while a real worker (the run's shared workflow bundle) polls a unique task queue
 * on the shared dev server; the worker and both connections are closed afterwards.
 */
export async function withWorker<T>(
  options: WithWorkerOptions,
  body: (context: WorkerContext) => Promise<T>,
): Promise<T> {
  const address = harnessValue(harnessEnv.temporalAddress);
  const taskQueue = options.taskQueue ?? uniqueTaskQueue();
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    // Versioned as the product's workers are (its workflows state their versioning behaviour).
    const deployment = workerDeployment(taskQueue);
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
      activities: options.activities ?? {},
      ...versionedWorker(deployment),
    });
    const client = new Client({ connection });
    await promoteBuild(client, deployment, { onlyIfNone: true, beforePolling: true });
    return await worker.runUntil(body({ client, taskQueue, worker }));
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}
