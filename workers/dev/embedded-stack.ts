import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type DevServer, startDevServer } from './temporal-dev-server';
import { removeStackInfo, type StackInfo, writeStackInfo } from './stack-file';

/** Options of {@link startEmbeddedStack}. */
export interface EmbeddedStackOptions {
  /** Holds the dev server's SQLite database and the stack file. @default './.data' */
  dataDir?: string;
  /** Temporal gRPC port. @default 7233 */
  temporalPort?: number;
  /** Temporal web UI port. @default 8233 */
  uiPort?: number;
}

/** The running embedded stack of `idv dev`. */
export interface EmbeddedStack {
  info: StackInfo;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts the development stack: a Temporal dev server persisting to SQLite in the data dir,
 * with its web UI, and publishes the addresses in `<dataDir>/stack.json`.
 */
export async function startEmbeddedStack(options: EmbeddedStackOptions = {}): Promise<EmbeddedStack> {
  const dataDir = resolve(options.dataDir ?? '.data');
  await mkdir(dataDir, { recursive: true });
  const temporal: DevServer = await startDevServer({
    port: options.temporalPort ?? 7233,
    uiPort: options.uiPort ?? 8233,
    dbFile: join(dataDir, 'temporal.sqlite'),
    logLevel: 'error',
  });
  const info: StackInfo = {
    pid: process.pid,
    temporalAddress: temporal.address,
    namespace: temporal.namespace,
    ...(temporal.uiUrl ? { temporalUiUrl: temporal.uiUrl } : {}),
  };
  await writeStackInfo(dataDir, info);
  return {
    info,
    dataDir,
    async stop() {
      await removeStackInfo(dataDir);
      await temporal.stop();
    },
  };
}
