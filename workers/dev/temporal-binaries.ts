import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../package-root';

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
 * Locates the binaries that `scripts/install-temporal.mjs` provided into the package's `.tools/`
 * (in a clone it runs on `npm install` and before `npm test`; an installed package runs it on
 * demand). `TEMPORAL_CLI_PATH` and `TEMPORAL_TEST_SERVER_PATH` override it.
 */
export function resolveTemporalBinaries(projectRoot = packageRoot()): TemporalBinaries {
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
      `Temporal binaries not found: run \`node ${join(projectRoot, 'scripts', 'install-temporal.mjs')}\` ` +
        '(`npm install` does it in a clone of the repository), or set TEMPORAL_CLI_PATH and TEMPORAL_TEST_SERVER_PATH',
    );
  }
  return { cli, testServer };
}
