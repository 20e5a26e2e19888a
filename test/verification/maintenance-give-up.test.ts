import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { openLocalStore } from '../../stores/local/local-store';
import { freePort } from '../../workers/dev/free-port';
import { orphanSweepWorkflowId } from '../../verification/shared/ids';
import { eventually } from '../harness/eventually';
import { idvArgs } from '../harness/idv-command';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';
import { uniqueTaskQueue } from '../harness/worker';
import { startIdvProcess, workerProcessEnv } from '../harness/worker-process';

const run = promisify(execFile);

/** Sums the samples of `name` whose labels include `labels` (Prometheus text). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name}_total{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

// No maintenance workflow waits forever: a step that can never succeed gives up within its
// bound, fails visibly, moves idv_maintenance_failed and is listed by `idv list --failed`.
describe('a maintenance step that can never succeed', () => {
  const stack = useVerificationStack();
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-give-up-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the orphan sweep, every ListSessions answered 503, gives up within its bound, counted and listed', async () => {
    const taskQueue = uniqueTaskQueue('give-up');
    const port = await freePort();
    const env = workerProcessEnv(stack().emulator, taskQueue, dataDir);
    const worker = await startIdvProcess(
      ['worker', '--metrics-port', String(port)],
      env,
      'polling task queue',
    );
    try {
      const idv = harnessIdvClient(stack().client, await openLocalStore(dataDir), taskQueue);
      await stack().control('PUT', '/script', { outcome: 'manual' });
      await stack().control('PUT', '/faults', { operation: 'ListSessions', errorRate: 1, errorStatus: 503 });
      // A lost create answer: the verification asks its profile's sweep to look.
      await stack().control('PUT', '/faults', {
        operation: 'CreateDirectProviderSession',
        dropResponseRate: 1,
        count: 1,
      });
      const { handle } = await idv.startVerification(stack().request({ redactAfter: 'never' }));
      await handle.cancel('test over');
      const sweep = stack().client.workflow.getHandle(orphanSweepWorkflowId(stack().profileId));
      const error: unknown = await sweep.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('MaintenanceGaveUp');
      expect(cause.message).toMatch(/^sweep: looking for orphans gave up: ServerError/);
      // Its bound (the worker's 15 s horizon), with room for the scheduling around it.
      const description = await sweep.describe();
      const ranMs = (description.closeTime?.getTime() ?? 0) - description.startTime.getTime();
      expect(ranMs).toBeLessThan(45_000);

      const metrics = await eventually(async () => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return sample(text, 'idv_maintenance_failed', { kind: 'sweep' }) >= 1 ? text : undefined;
      }, 'idv_maintenance_failed{kind="sweep"} to move');
      expect(sample(metrics, 'idv_maintenance_failed', { kind: 'sweep', step: 'looking for orphans' })).toBe(
        1,
      );

      const { stdout } = await run(process.execPath, idvArgs('list', '--failed'), {
        env: { ...process.env, ...env },
      });
      expect(stdout).toContain(orphanSweepWorkflowId(stack().profileId));
      expect(stdout).toContain('why:  sweep: looking for orphans gave up');
      expect(stdout).toContain(`next: sessions may be left live or holding data at the service`);
      expect(stdout).toContain(`idv sweep ${stack().profileId}`);
    } finally {
      await stack().control('DELETE', '/faults');
      await worker.stop();
    }
  }, 120_000);
});
