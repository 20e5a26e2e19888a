import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chownSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../workers/dev/free-port';
import { installedBinDir, serverBinDir } from './postgres-binaries';
import { PostgresServerError } from './postgres-error';
import { command, privilegeDrop, requireReachable, type RunAs } from './postgres-run-as';

// A throwaway PostgreSQL server for the tests, run as an unprivileged user when this process is
// root (postgres-run-as.ts), from binaries that user can reach (postgres-binaries.ts). The data
// directory is chowned to that user; its parent folders must let it in (the OS temp dir does).

const HOST = '127.0.0.1';
const SUPERUSER = 'idv';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const RETRY_INTERVAL_MS = 100;
const PORT_ATTEMPTS = 3;
/** Linux limit of a unix socket path (sun_path is 108 bytes with the NUL). */
const MAX_SOCKET_PATH = 107;

/** A running PostgreSQL server; `url` points at its `postgres` database as superuser `idv`. */
export interface PostgresServer {
  url: string;
  /** Fast shutdown (SIGINT), SIGKILL after 10 s. Safe to call twice. */
  stop(): Promise<void>;
}

/** A database on a {@link PostgresServer}, created for one test (file). */
export interface TestDatabase {
  url: string;
  /** Drops the database, terminating its connections. Safe to call twice. */
  drop(): Promise<void>;
}

/** Options of {@link startPostgresServer}. */
export interface PostgresServerOptions {
  /**
   * The folder of `initdb` and `postgres`.
   * @default the installed binaries (.tools/postgres-binaries.json)
   */
  binDir?: string;
  /**
   * Where binaries the server's user cannot reach are copied to (when this process is root).
   * @default the OS temp dir
   */
  copiesDir?: string;
}

/**
 * Initialises a cluster in `dir` (created if missing; must be empty) and starts `postgres` on a
 * free loopback port as a child of this process. Resolves once it accepts connections.
 */
export async function startPostgresServer(
  dir: string,
  options: PostgresServerOptions = {},
): Promise<PostgresServer> {
  const runAs = privilegeDrop();
  const binDir = await serverBinDir({
    binDir: options.binDir ?? installedBinDir(),
    user: runAs.user,
    copiesDir: options.copiesDir ?? tmpdir(),
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runAs.user) {
    chownSync(dir, runAs.user.uid, runAs.user.gid);
    requireReachable(dir, runAs.user, `its data directory ${dir} must be in folders that user can enter`);
  }
  await initdb(binDir, dir, runAs);
  const dataDir = realpathSync(dir);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launch(binDir, dataDir, runAs);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/** Creates a database with a random name `idv_test_<hex>` on the server at `serverUrl`. */
export async function createTestDatabase(serverUrl: string): Promise<TestDatabase> {
  const name = `idv_test_${randomBytes(8).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropping: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop() {
      dropping ??= withClient(serverUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
      return dropping;
    },
  };
}

async function initdb(binDir: string, dir: string, runAs: RunAs): Promise<void> {
  const args = ['-D', dir, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'];
  const [file, argv] = command(runAs, join(binDir, 'initdb'), args);
  const child = spawn(file, argv, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) {
    const as = runAs.user ? ` (as ${runAs.user.name})` : '';
    throw new PostgresServerError(`initdb${as} failed (${signal ?? `exit ${code}`}): ${output.trim()}`);
  }
}

/** Thrown when the chosen port turned out to be taken; {@link startPostgresServer} retries. */
class PortTakenError extends PostgresServerError {}

async function launch(binDir: string, dataDir: string, runAs: RunAs): Promise<PostgresServer> {
  const port = await freePort(HOST);
  const socketDir = `${dataDir}/.s.PGSQL.${port}`.length <= MAX_SOCKET_PATH ? dataDir : '';
  const args = ['-D', dataDir, '-p', String(port), '-h', HOST, '-k', socketDir];
  for (const setting of ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off']) {
    args.push('-c', setting);
  }
  const logPath = join(dataDir, 'postgres.log');
  const log = openSync(logPath, 'a');
  const logStart = fstatSync(log).size; // earlier attempts' lines stay out of error messages
  const [file, argv] = command(runAs, join(binDir, 'postgres'), args);
  let child: ChildProcess;
  try {
    child = spawn(file, argv, { cwd: dataDir, detached: false, stdio: ['ignore', log, log] });
  } finally {
    closeSync(log);
  }
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const stop = stopper(child);
  const url = `postgres://${SUPERUSER}@${HOST}:${port}/postgres`;
  try {
    await waitReady(
      child,
      url,
      dataDir,
      () => spawnError,
      () => logTail(logPath, logStart),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

function stopper(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((resolveExit) => {
    child.once('exit', () => resolveExit());
    child.once('error', () => resolveExit()); // never started
  });
  // Should this process exit without stop(), still shut the server down.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      process.removeListener('exit', onExit);
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        const killTimer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(killTimer);
      }
    })();
    return stopping;
  };
}

async function waitReady(
  child: ChildProcess,
  url: string,
  dataDir: string,
  spawnError: () => Error | undefined,
  serverLog: () => string,
): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError: unknown;
  for (;;) {
    const failedSpawn = spawnError();
    if (failedSpawn) throw new PostgresServerError(`could not run postgres: ${failedSpawn.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = serverLog();
      const message = `postgres exited during start-up (${child.signalCode ?? `exit ${child.exitCode}`}): ${log}`;
      if (/could not bind|address already in use|could not create any TCP\/IP sockets/i.test(log)) {
        throw new PortTakenError(message);
      }
      throw new PostgresServerError(message);
    }
    try {
      const served = await withClient(url, async (client) => {
        const result = await client.query<{ data_directory: string }>('SHOW data_directory');
        return result.rows[0]?.data_directory;
      });
      // Another server could have grabbed the port between freePort() and our bind.
      if (served !== dataDir) throw new PortTakenError(`${url} is served from ${served}, not ${dataDir}`);
      return;
    } catch (error) {
      if (error instanceof PortTakenError) throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? lastError.message : String(lastError);
      throw new PostgresServerError(
        `postgres not accepting connections after ${START_TIMEOUT_MS} ms: ${reason}\n${serverLog()}`,
      );
    }
    await new Promise((resolveDelay) => setTimeout(resolveDelay, RETRY_INTERVAL_MS));
  }
}

function logTail(logPath: string, from: number): string {
  try {
    return readFileSync(logPath).subarray(from).toString('utf8').slice(-4000).trim();
  } catch {
    return `(no log at ${logPath})`;
  }
}

async function withClient<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {}); // a connection lost mid-query surfaces through the query's promise
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
