import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { failureConverterPath } from '../../codec/data-converter';
import { newEncryptionKeyEntry } from '../../codec/encryption-keys';
import { type DevServer, startDevServer } from '../../workers/dev/temporal-dev-server';
import { harnessEnv } from './env';
import { quietBundleLogger } from './release-bundle';
import { type PostgresServer, startPostgresServer } from './postgres';

declare global {
  var __idvDevServer: DevServer | undefined;
  var __idvBundlePath: string | undefined;
  var __idvPostgres: PostgresServer | undefined;
  var __idvPostgresDir: string | undefined;
}

/**
 * Starts one dev server and one PostgreSQL server and builds the workflow bundle once for the
 * whole run.
 */
export default async function globalSetup(): Promise<void> {
  const postgresDir = await mkdtemp(join(tmpdir(), 'idv-postgres-'));
  const serverStart = startDevServer({
    // The server deletes a closed run once its close task is known done, which its queues record
    // every 30 s by default; a check that misses it backs off to minutes (the shredding tests wait
    // for a keyring run's deletion).
    dynamicConfig: {
      'history.transferProcessorUpdateAckInterval': '1s',
      'history.visibilityProcessorUpdateAckInterval': '1s',
    },
  });
  const postgresStart = startPostgresServer(postgresDir);
  const bundling = bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    failureConverterPath,
    logger: quietBundleLogger,
  });
  let started: [DevServer, Awaited<typeof bundling>, PostgresServer];
  try {
    started = await Promise.all([serverStart, bundling, postgresStart]);
  } catch (error) {
    // jest skips the global teardown when the setup fails: stop whatever did start.
    const servers = await Promise.allSettled([serverStart, postgresStart]);
    for (const result of servers) if (result.status === 'fulfilled') await result.value.stop();
    await rm(postgresDir, { recursive: true, force: true });
    throw error;
  }
  const [server, bundle, postgres] = started;
  globalThis.__idvDevServer = server;
  globalThis.__idvPostgres = postgres;
  globalThis.__idvPostgresDir = postgresDir;
  const bundlePath = join(tmpdir(), `idv-workflow-bundle-${process.pid}.js`);
  await writeFile(bundlePath, bundle.code);
  globalThis.__idvBundlePath = bundlePath;
  process.env[harnessEnv.temporalAddress] = server.address;
  process.env[harnessEnv.workflowBundle] = bundlePath;
  process.env[harnessEnv.encryptionKeys] = newEncryptionKeyEntry('test-run');
  process.env[harnessEnv.postgresUrl] = postgres.url;
}
