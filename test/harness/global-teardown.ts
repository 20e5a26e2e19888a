import { rm } from 'node:fs/promises';

/** Stops the shared dev server and PostgreSQL server and removes their files. */
export default async function globalTeardown(): Promise<void> {
  await Promise.all([globalThis.__idvDevServer?.stop(), globalThis.__idvPostgres?.stop()]);
  if (globalThis.__idvBundlePath) await rm(globalThis.__idvBundlePath, { force: true });
  if (globalThis.__idvPostgresDir) {
    await rm(globalThis.__idvPostgresDir, { recursive: true, force: true });
  }
}
