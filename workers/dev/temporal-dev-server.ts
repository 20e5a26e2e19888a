import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Connection } from '@temporalio/client';
import { idvSearchAttributes, searchAttributeTypeName } from '../../common/search-attributes';
import { assertPortFree, freePort, PortTakenError } from './free-port';
import { resolveTemporalBinaries } from './temporal-binaries';

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** gRPC port; `0` picks a free one. @default 0 */
  port?: number;
  /** Web UI port; `false` runs headless, `0` picks a free one. @default false */
  uiPort?: number | false;
  /** SQLite file for persistence; in-memory when absent. */
  dbFile?: string;
  /** Namespace the callers use; created at start. @default 'default' */
  namespace?: string;
  /** How long to wait for the server to become healthy. @default 60_000 */
  startTimeoutMs?: number;
  /** Server log level passed to the CLI. @default 'error' */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** The web UI's codec server (`--ui-codec-endpoint`): it shows decoded payloads. */
  uiCodecEndpoint?: string;
  /** Extra dynamic configuration (`--dynamic-config-value KEY=VALUE`), e.g. history limits in tests. */
  dynamicConfig?: Record<string, string | number | boolean>;
}

/** A running `temporal server start-dev`. */
export interface DevServer {
  address: string;
  namespace: string;
  uiUrl: string | undefined;
  pid: number | undefined;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s). Safe to call twice. */
  stop(): Promise<void>;
}

/** Thrown when the dev server exits or stays unhealthy during start-up. */
export class DevServerStartError extends Error {
  override readonly name = 'DevServerStartError';
  constructor(
    message: string,
    /** The server exited (rather than staying unhealthy). */
    readonly exited = false,
  ) {
    super(message);
  }
}

const HOST = '127.0.0.1';

/** How many times ports picked here are picked again when one is taken before the server binds it. */
const PICK_ATTEMPTS = 3;

/** Picks a free port on a host; {@link freePort} unless a test names the ports. */
export type PortPicker = (host: string) => Promise<number>;

/**
 * Starts a Temporal dev server with our search attributes registered and update-with-start
 * enabled, and resolves once it answers health checks and lists those search attributes (the
 * SDK's own launcher gives up after a few seconds, too short on a loaded 2-core machine).
 *
 * A port named in the options is refused when taken ({@link PortTakenError} naming its option).
 * A port picked here is free when picked but can be taken before the server binds it (another
 * process's connection lands on it): then both are picked again, {@link PICK_ATTEMPTS} times at most.
 */
export async function startDevServer(
  options: DevServerOptions = {},
  pickPort: PortPicker = freePort,
): Promise<DevServer> {
  if (options.port) await assertPortFree(options.port, HOST, '--port');
  if (typeof options.uiPort === 'number' && options.uiPort > 0)
    await assertPortFree(options.uiPort, HOST, '--ui-port');
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port || (await pickPort(HOST));
    const uiPort =
      options.uiPort === false || options.uiPort === undefined
        ? false
        : options.uiPort || (await pickPort(HOST));
    try {
      return await launch(options, port, uiPort);
    } catch (error) {
      const picked =
        error instanceof PortTakenError && error.port !== options.port && error.port !== options.uiPort;
      // An exit during start-up with ports picked here may be over a port the CLI binds besides them.
      const pickedAny = !options.port || options.uiPort === 0;
      const retry = picked || (error instanceof DevServerStartError && error.exited && pickedAny);
      if (!retry || attempt >= PICK_ATTEMPTS) throw error;
    }
  }
}

async function launch(options: DevServerOptions, port: number, uiPort: number | false): Promise<DevServer> {
  const { cli } = resolveTemporalBinaries();
  const namespace = options.namespace ?? 'default';
  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(port), '--namespace', namespace];
  args.push('--log-level', options.logLevel ?? 'error');
  args.push(
    ...(uiPort === false ? ['--headless'] : ['--ui-port', String(uiPort), '--ui-disable-news-fetch']),
  );
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  if (options.uiCodecEndpoint && uiPort !== false) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  for (const { name, type } of idvSearchAttributes)
    args.push('--search-attribute', `${name}=${searchAttributeTypeName(type)}`);
  for (const flag of ['frontend.enableUpdateWorkflowExecution', 'frontend.enableExecuteMultiOperation']) {
    args.push('--dynamic-config-value', `${flag}=true`);
  }
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  // Under umask 077 every file the server makes (its SQLite database, journal and WAL) is
  // readable by the owner only: history is encrypted, but ids, statuses and times are not.
  // `exec` keeps the server itself as the child, so signals reach it.
  const child = spawn('/bin/sh', ['-c', 'umask 077 && exec "$0" "$@"', cli, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr = new StartUpOutput();
  // Once the child's output is all read (its reason to exit may be the last line).
  const closed = once(child, 'close').then(
    () => undefined,
    () => undefined,
  );
  child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk.toString('utf8')));
  const address = `${HOST}:${port}`;
  // If this process exits without stopping it (a command ended by Ctrl-C), the server goes too.
  const orphaned = () => child.kill('SIGTERM');
  process.once('exit', orphaned);
  child.once('exit', () => process.removeListener('exit', orphaned));
  const stop = stopper(child);
  try {
    await waitHealthy(child, address, namespace, options.startTimeoutMs ?? 60_000, () => stderr.text());
  } catch (error) {
    await stop();
    await Promise.race([closed, new Promise((resolveWait) => setTimeout(resolveWait, 5_000).unref())]);
    const taken = takenPort(stderr.text(), port, uiPort);
    if (taken) throw taken;
    // Its output read to the end: the reason it exited is often the last line.
    if (error instanceof DevServerStartError && error.exited)
      throw new DevServerStartError(`temporal dev server exited during start-up: ${stderr.text()}`, true);
    throw error;
  }
  return {
    address,
    namespace,
    uiUrl: uiPort === false ? undefined : `http://${HOST}:${uiPort}`,
    pid: child.pid,
    stop,
  };
}

/**
 * What the server wrote to stderr during start-up, bounded: its beginning and its end. A Go
 * panic names its cause on its first line, then dumps every goroutine; an error's last line
 * often says why the server exited. Both are kept, with what lay between them left out.
 */
export class StartUpOutput {
  static readonly HEAD_CHARS = 2_000;
  static readonly TAIL_CHARS = 4_000;
  #head = '';
  #tail = '';
  #left = 0;

  add(chunk: string): void {
    const toHead = Math.max(0, StartUpOutput.HEAD_CHARS - this.#head.length);
    this.#head += chunk.slice(0, toHead);
    const joined = this.#tail + chunk.slice(toHead);
    const cut = Math.max(0, joined.length - StartUpOutput.TAIL_CHARS);
    this.#left += cut;
    this.#tail = joined.slice(cut);
  }

  text(): string {
    const gap = this.#left > 0 ? `\n… (${this.#left} characters left out) …\n` : '';
    return `${this.#head}${gap}${this.#tail}`.trim();
  }
}

/** The CLI checks its ports before it starts and exits naming the one it cannot bind. */
function takenPort(stderr: string, port: number, uiPort: number | false): PortTakenError | undefined {
  const match = /listen tcp [^\s]*:(\d+): bind: address already in use/.exec(stderr);
  if (!match) return undefined;
  const taken = Number(match[1]);
  return new PortTakenError(taken, HOST, taken === uiPort ? '--ui-port' : '--port');
}

function stopper(child: ChildProcess): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killTimer);
    })();
    return stopping;
  };
}

async function waitHealthy(
  child: ChildProcess,
  address: string,
  namespace: string,
  timeoutMs: number,
  stderr: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new DevServerStartError(`temporal dev server exited during start-up: ${stderr()}`, true);
    }
    try {
      await probe(address, namespace);
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 200));
    }
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new DevServerStartError(`temporal dev server not healthy after ${timeoutMs} ms: ${reason}`);
}

async function probe(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  try {
    await connection.healthService.check({});
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = idvSearchAttributes.map(({ name }) => name).filter((name) => !customAttributes?.[name]);
    if (missing.length > 0) throw new Error(`search attributes not registered yet: ${missing.join(', ')}`);
  } finally {
    await connection.close();
  }
}
