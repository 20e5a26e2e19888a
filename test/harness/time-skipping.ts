import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { idvSearchAttributes } from '../../common/search-attributes';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { resolveTemporalBinaries } from '../../workers/dev/temporal-binaries';
import { harnessEnv, harnessValue } from './env';
import { uniqueTaskQueue } from './worker';

/** What a test body gets from {@link withTimeSkipping}. */
export interface TimeSkippingContext {
  env: TestWorkflowEnvironment;
  client: Client;
  taskQueue: string;
}

/**
 * Runs `body` against a fresh time-skipping test server (the project's binary, never a
 * download) with a worker on the shared bundle; timers fire as soon as nothing else runs.
 */
export async function withTimeSkipping<T>(
  options: { activities?: object },
  body: (context: TimeSkippingContext) => Promise<T>,
): Promise<T> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: resolveTemporalBinaries().testServer } },
  });
  try {
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(
        idvSearchAttributes.map(({ name, type }) => [
          name,
          temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${type}`],
        ]),
      ),
    });
    const taskQueue = uniqueTaskQueue('time-skipping');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
      activities: options.activities ?? {},
    });
    return await worker.runUntil(body({ env, client: env.client, taskQueue }));
  } finally {
    await env.teardown();
  }
}
