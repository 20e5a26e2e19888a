// The scale benches' stack: one dev server, emulators in their own processes, `idv worker`
// processes (what users deploy) measured from outside, and in this process the client, the
// receiver (users' returns) and the load.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { IdvClient } from '../../verification/client/idv-client';
import { encryptingDataConverter } from '../../codec/data-converter';
import { newEncryptionKeyEntry, parseEncryptionKeys } from '../../codec/encryption-keys';
import { emulatorControl } from '../../emulator/control-client';
import { type EmulatorInfo } from '../../emulator/emulator';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { startDevServer, type DevServer } from '../../workers/dev/temporal-dev-server';
import { type Receiver, startReceiver } from '../../workers/receiver/receiver-server';
import { ReceiverTokens } from '../../codec/receiver-tokens';
import { spawnEmulator } from '../support/emulator-process';

/** An emulator process and its control API. */
export interface BenchEmulator {
  info: EmulatorInfo;
  pid: number;
  control: ReturnType<typeof emulatorControl>;
  stop(): Promise<void>;
}

/** An `idv worker` process. */
export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
}

/** Resident memory (MiB) and CPU seconds (user + system) of a process, read from /proc. */
export function processUsage(pid: number): { rssMiB: number; cpuSeconds: number } {
  if (!existsSync(`/proc/${pid}`)) return { rssMiB: Number.NaN, cpuSeconds: Number.NaN };
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rssMiB: rssKiB / 1024, cpuSeconds: ticks / 100 };
}

export interface ScaleStack {
  server: DevServer;
  dataDir: string;
  encryptionKeysEntry: string;
  store: IdvStore;
  client: Client;
  receiver: Receiver;
  /** A verification's return URL at that receiver (with its token). */
  returnUrl: (reference: string) => string;
  /** An emulator process (seeded); stopped with the stack. */
  emulator(seed: number): Promise<BenchEmulator>;
  /** An `idv worker` on `taskQueue` against `emulator`, with `IDV_API_RATE` and extra variables. */
  worker(options: {
    taskQueue: string;
    emulator: BenchEmulator;
    apiRate: number;
    env?: NodeJS.ProcessEnv;
  }): Promise<WorkerProcess>;
  idv(taskQueue: string): IdvClient;
  stop(): Promise<void>;
}

export async function startScaleStack(): Promise<ScaleStack> {
  const server = await startDevServer({});
  const dataDir = await mkdtemp(join(tmpdir(), 'idv-bench-scale-'));
  const encryptionKeysEntry = newEncryptionKeyEntry('bench');
  const encryptionKeys = parseEncryptionKeys(encryptionKeysEntry);
  const store = await openLocalStore(join(dataDir, 'store'));
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, dataConverter: encryptingDataConverter(encryptionKeys) });
  // The receiver on a connection of its own, as in its own process: the load's long polls must
  // not hold up the users' returns.
  const receiverConnection = await Connection.connect({ address: server.address });
  const tokens = new ReceiverTokens(randomBytes(32).toString('hex'));
  const receiver = await startReceiver({
    client: new Client({
      connection: receiverConnection,
      dataConverter: encryptingDataConverter(encryptionKeys),
    }),
    taskQueue: 'bench-scale-receiver',
    tokens,
    spoolDir: join(dataDir, 'receiver-spool'),
  });
  const emulators: BenchEmulator[] = [];
  const workers: WorkerProcess[] = [];
  return {
    server,
    dataDir,
    encryptionKeysEntry,
    store,
    client,
    receiver,
    returnUrl: (reference) => tokens.returnUrl(receiver.url, reference),
    async emulator(seed) {
      const spawned = await spawnEmulator(['--seed', String(seed)]);
      const emulator = {
        info: spawned.info,
        pid: spawned.child.pid as number,
        control: emulatorControl(spawned.info.controlUrl),
        stop: () => spawned.stop(),
      };
      emulators.push(emulator);
      return emulator;
    },
    async worker({ taskQueue, emulator, apiRate, env = {} }) {
      const worker = await spawnWorker({
        TEMPORAL_ADDRESS: server.address,
        IDV_ENCRYPTION_KEYS: encryptionKeysEntry,
        IDV_API_BASE_URL: emulator.info.baseUrl,
        IDV_API_KEY: emulator.info.apiKeys[0],
        IDV_TASK_QUEUE: taskQueue,
        IDV_DATA_DIR: join(dataDir, 'store'),
        IDV_API_RATE: String(apiRate),
        IDV_LOG_LEVEL: 'error',
        ...env,
      });
      workers.push(worker);
      return worker;
    },
    idv: (taskQueue) => new IdvClient({ client, store, taskQueue }),
    async stop() {
      for (const worker of workers) if (worker.child.exitCode === null) await worker.stop();
      await receiver.close();
      await receiverConnection.close();
      for (const emulator of emulators) await emulator.stop();
      await connection.close();
      await store.close();
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts `idv worker` (compiled) with `env`; resolves once it polls its task queue. */
export async function spawnWorker(env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  const idv = join(__dirname, '..', '..', 'bin', 'idv.js');
  const merged = { ...process.env, ...env };
  // BENCH_WORKER_NODE_ARGS: Node flags for the worker that NODE_OPTIONS refuses (`--cpu-prof`).
  const nodeArgs = merged.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, idv, 'worker'], {
    env: merged,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4_000);
      if (stderr.includes('polling task queue')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`idv worker exited with ${code}: ${stderr}`)));
  });
  const ended = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };
  return {
    pid: child.pid as number,
    child,
    stop: () => ended('SIGTERM'),
    kill: () => ended('SIGKILL'),
  };
}
