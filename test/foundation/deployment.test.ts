import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { deploymentStatus, promoteBuild } from '../../workers/deployment';
import { versionedWorker, workerDeployment } from '../../workers/deployment-settings';
import { harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { uniqueTaskQueue } from '../harness/worker';

describe('worker deployments', () => {
  const address = () => harnessValue(harnessEnv.temporalAddress);
  let connection: Connection;
  let client: Client;
  const running: Array<{ worker: Worker; run: Promise<void>; native: NativeConnection }> = [];

  async function startBuild(taskQueue: string, buildId: string): Promise<void> {
    const native = await NativeConnection.connect({ address: address() });
    const worker = await Worker.create({
      connection: native,
      taskQueue,
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
      ...versionedWorker(workerDeployment(taskQueue, { buildId })),
    });
    running.push({ worker, run: worker.run(), native });
  }

  async function buildOf(workflowId: string): Promise<string | undefined> {
    const described = await client.workflowService.describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId },
    });
    return described.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
  }

  beforeAll(async () => {
    connection = await Connection.connect({ address: address() });
    client = new Client({ connection });
  });

  afterAll(async () => {
    for (const { worker, run, native } of running) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run.catch(() => undefined);
      await native.close();
    }
    await connection?.close();
  });

  it('of first builds made current at once, tell the one current in the end that it was promoted', async () => {
    const name = `deployment-race-${randomUUID().slice(0, 8)}`;
    const builds = ['X', 'Y', 'Z'];
    const results = await Promise.all(
      builds.map((buildId) =>
        promoteBuild(client, { name, buildId }, { onlyIfNone: true, beforePolling: true }),
      ),
    );
    const current = (await deploymentStatus(client, name)).currentBuildId;
    expect(results[builds.indexOf(current ?? '')]).toBe('promoted');
    // A process restarted with a build, the deployment now made.
    expect(await promoteBuild(client, { name, buildId: current ?? '' }, { onlyIfNone: true })).toBe(
      'already current',
    );
    expect(await promoteBuild(client, { name, buildId: 'W' }, { onlyIfNone: true })).toBe(
      'another is current',
    );
  }, 30_000);

  it('of several processes of one build starting at once, make it current, none failing', async () => {
    const name = `deployment-same-${randomUUID().slice(0, 8)}`;
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        promoteBuild(client, { name, buildId: 'X' }, { onlyIfNone: true, beforePolling: true }),
      ),
    );
    expect(results.every((result) => result === 'promoted' || result === 'already current')).toBe(true);
    expect((await deploymentStatus(client, name)).currentBuildId).toBe('X');
  }, 30_000);

  it('of two stacks on their own task queues are upgraded apart', async () => {
    const [queueX, queueY] = [uniqueTaskQueue('deployment-x'), uniqueTaskQueue('deployment-y')];
    for (const queue of [queueX, queueY]) {
      await startBuild(queue, 'A');
      await promoteBuild(client, workerDeployment(queue, { buildId: 'A' }), {
        onlyIfNone: true,
        beforePolling: true,
      });
    }
    // Build B on X only, made current there once its worker polls (as `idv deployment promote`).
    await startBuild(queueX, 'B');
    await eventually(
      () => promoteBuild(client, workerDeployment(queueX, { buildId: 'B' })).catch(() => undefined),
      'B current on X',
    );
    const onX = `deployment-x-${randomUUID()}`;
    const onY = `deployment-y-${randomUUID()}`;
    await client.workflow.execute('sleepThenReport', { workflowId: onX, taskQueue: queueX, args: ['1ms'] });
    await client.workflow.execute('sleepThenReport', { workflowId: onY, taskQueue: queueY, args: ['1ms'] });
    expect({ x: await buildOf(onX), y: await buildOf(onY) }).toEqual({ x: 'B', y: 'A' });
  }, 60_000);
});
