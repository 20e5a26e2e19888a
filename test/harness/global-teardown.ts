import { rm } from 'node:fs/promises';

/** Stops the shared dev server and removes the bundle file. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.__idvDevServer?.stop();
  if (globalThis.__idvBundlePath) await rm(globalThis.__idvBundlePath, { force: true });
}
