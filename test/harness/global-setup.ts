import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { failureConverterPath } from '../../codec/data-converter';
import { newEncryptionKeyEntry } from '../../codec/encryption-keys';
import { type DevServer, startDevServer } from '../../workers/dev/temporal-dev-server';
import { harnessEnv } from './env';

declare global {
  var __idvDevServer: DevServer | undefined;
  var __idvBundlePath: string | undefined;
}

/** Starts one dev server and builds the workflow bundle once for the whole run. */
export default async function globalSetup(): Promise<void> {
  const [server, bundle] = await Promise.all([
    startDevServer({}),
    bundleWorkflowCode({
      workflowsPath: require.resolve('./workflows'),
      failureConverterPath,
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    }),
  ]);
  globalThis.__idvDevServer = server;
  const bundlePath = join(tmpdir(), `idv-workflow-bundle-${process.pid}.js`);
  await writeFile(bundlePath, bundle.code);
  globalThis.__idvBundlePath = bundlePath;
  process.env[harnessEnv.temporalAddress] = server.address;
  process.env[harnessEnv.workflowBundle] = bundlePath;
  process.env[harnessEnv.encryptionKeys] = newEncryptionKeyEntry('test-run');
}
