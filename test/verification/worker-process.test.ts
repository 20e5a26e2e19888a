import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';
import { openLocalStore } from '../../stores/local/local-store';
import { uniqueTaskQueue } from '../harness/worker';
import { startWorkerProcess, workerProcessEnv } from '../harness/worker-process';
import { idvArgs } from '../harness/idv-command';

describe('the idv worker process', () => {
  const stack = useVerificationStack();
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const taskQueue = uniqueTaskQueue('process');
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-worker-'));
    env = workerProcessEnv(stack().emulator, taskQueue, dataDir);
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('killed with SIGKILL mid-session and started again, yields exactly one outcome', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    const idv = harnessIdvClient(stack().client, await openLocalStore(dataDir), taskQueue);
    const first = await startWorkerProcess(env);
    const { handle, nextStep } = await idv.startVerification(
      // Held by the worker for 30 s at most (the attempt's 2 minutes less one poll's bound).
      stack().request({ redactAfter: 'never', polling: { initialMs: 200, maxMs: 500, attemptMs: 120_000 } }),
    );
    await first.kill();
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    const second = await startWorkerProcess(env);
    try {
      await expect(handle.result()).resolves.toMatchObject({
        status: 'succeeded',
        sessionId: nextStep.sessionId,
      });
    } finally {
      expect(await second.stop()).toBe(0);
      await stack().control('PUT', '/script', { outcome: 'by-input' });
    }
    // The poll attempt the killed worker held comes back after its start-to-close (2 minutes), on
    // top of a worker's start (bundling its workflows).
  }, 240_000);

  it('stops at start with one line naming an invalid variable', async () => {
    const child = spawn(process.execPath, idvArgs('worker'), {
      env: { ...process.env, ...env, IDV_TASK_QUEUE: 'has spaces' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(stderr).toBe("idv: IDV_TASK_QUEUE must not contain spaces (got 'has spaces')\n");
  });
});
