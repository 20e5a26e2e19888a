import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commands } from '../../cli/commands/index';
import { runCli } from '../../cli/run-cli';
import { captureIo } from '../cli/capture-io';
import {
  adoptPinnedWork,
  type DeploymentStatus,
  deploymentStatus,
  promoteBuild,
} from '../../workers/deployment';
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

  it('say which build runs pinned work with no worker polling, and hand that work to the current build', async () => {
    const queue = uniqueTaskQueue('deployment-stranded');
    const { name } = workerDeployment(queue);
    await startBuild(queue, 'A');
    await promoteBuild(client, workerDeployment(queue, { buildId: 'A' }), {
      onlyIfNone: true,
      beforePolling: true,
    });
    const pinned = `deployment-stranded-${randomUUID()}`;
    await client.workflow.start('sleepThenReport', { workflowId: pinned, taskQueue: queue, args: ['1h'] });
    const buildA = (status: DeploymentStatus) => status.builds.find((build) => build.buildId === 'A');
    const polled = await eventually(async () => {
      const status = await deploymentStatus(client, name);
      return (buildA(status)?.pinnedRunning ?? 0) > 0 ? buildA(status) : undefined;
    }, 'the pinned run counted');
    expect(polled).toMatchObject({ pinnedRunning: 1, stranded: false });
    expect(polled?.workersPolling).toBeGreaterThan(0);
    // Its workers stopped long ago, as Temporal would show it minutes after they went.
    const later = await deploymentStatus(client, name, { nowMs: Date.now() + 10 * 60_000 });
    expect(buildA(later)).toMatchObject({ pinnedRunning: 1, workersPolling: 0, stranded: true });
    // The next build, current now, takes the stranded work over (`idv deployment adopt A`).
    await startBuild(queue, 'B');
    await eventually(
      () => promoteBuild(client, workerDeployment(queue, { buildId: 'B' })).catch(() => undefined),
      'B current',
    );
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-deployment-cli-'));
    const env = {
      TEMPORAL_ADDRESS: address(),
      IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
      IDV_TASK_QUEUE: queue,
      IDV_DATA_DIR: dataDir,
    };
    try {
      const shown = captureIo(env);
      await expect(runCli(['deployment'], commands, shown)).resolves.toBe(0);
      expect(shown.out()).toMatch(/^BUILD +STATUS +PINNED RUNNING +WORKERS\n/);
      expect(shown.out()).toMatch(/\nA +draining +1 +[1-9]/);
      // Refused while A's workers poll (its work runs on them), for the current build, for a
      // build the deployment does not have (a typo, or a quote that would change the query).
      const refusals = [
        [
          'A',
          1,
          'idv: build A still has workers polling: its pinned work runs on them (stop them first to move it)\n',
        ],
        ['B', 2, "idv: build B is the current one: adopt moves another build's pinned work onto it\n"],
        ["A' OR 'x' = 'x", 2, `idv: ${name} has no build A' OR 'x' = 'x\n`],
      ] as const;
      for (const [build, code, said] of refusals) {
        const refused = captureIo(env);
        await expect(runCli(['deployment', 'adopt', build], commands, refused)).resolves.toBe(code);
        expect(refused.err()).toBe(said);
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    // Once A's workers are gone, `idv deployment adopt A` moves its work so.
    expect(
      await adoptPinnedWork(client, workerDeployment(queue, { buildId: 'B' }), { fromBuildId: 'A' }),
    ).toBe(1);
    const described = await client.workflowService.describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId: pinned },
    });
    expect(described.workflowExecutionInfo?.versioningInfo?.versioningOverride?.autoUpgrade).toBe(true);
    await client.workflow.getHandle(pinned).terminate('done with the test');
  }, 60_000);
});
