import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { type Emulator } from '../../emulator/emulator';
import { harnessEnv, harnessValue } from './env';
import { idvArgs } from './idv-command';

/** The environment of an `idv worker` on the run's dev server and keys, against `emulator`. */
export function workerProcessEnv(
  emulator: Pick<Emulator, 'baseUrl' | 'apiKeys'>,
  taskQueue: string,
  dataDir: string,
): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: harnessValue(harnessEnv.temporalAddress),
    IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
    IDV_API_BASE_URL: emulator.baseUrl,
    IDV_API_KEY: emulator.apiKeys[0],
    IDV_TASK_QUEUE: taskQueue,
    IDV_DATA_DIR: dataDir,
    // Sweeps end soon after the tests that need them.
    IDV_ORPHAN_HORIZON: '15s',
  };
}

/** An `idv` process (a worker, a receiver). */
export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the worker wrote to stdout and stderr so far. */
  output(): string;
  /** SIGKILL: no graceful shutdown, in-flight activities are lost. */
  kill(): Promise<void>;
  /** SIGTERM; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `idv worker` with `env` added to this process's environment; resolves once it polls. */
export function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  return startIdvProcess(['worker'], env, 'polling task queue');
}

/** Starts `idv <args>` with `env` added; resolves once its stderr says `readyText`. */
export async function startIdvProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  readyText: string,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, idvArgs(...args), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(readyText)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`idv ${args[0]} exited with ${code}: ${stderr}`)));
  });
  return {
    child,
    output: () => stdout + stderr,
    async kill() {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
