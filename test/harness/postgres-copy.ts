import { createHash } from 'node:crypto';
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { PostgresServerError } from './postgres-error';

// A copy of a relocatable PostgreSQL installation (bin, lib and share side by side; the binaries
// find their libraries through $ORIGIN/../lib) where an unprivileged user can reach it: owned by
// this process's user, folders 0755, files 0755 or 0644. Named by its content, so every checkout
// of the same binaries shares one copy and other binaries get their own. Built under a name of its
// own and renamed into place whole, so concurrent test runs never see half a copy; checked
// against its name before each use, so a copy that a temp cleaner thinned out is made again.

/** One thing in an installation: a folder, a file or a symbolic link within it. */
interface Entry {
  /** Path below the installation's root. */
  path: string;
  kind: 'folder' | 'file' | 'link';
  mode: number;
  /** What a link points at, relative to the link's folder. */
  target?: string;
  /** Where a file's content is read from. */
  source?: string;
}

const FOLDER_MODE = 0o755;
const EXECUTABLE_MODE = 0o755;
const FILE_MODE = 0o644;

/** Folders an installation must have side by side to run from anywhere. */
const RELOCATABLE_LAYOUT = ['bin', 'lib', 'share'];

/** Whether `installDir` holds bin, lib and share side by side (the npm package's layout). */
export async function isRelocatable(installDir: string): Promise<boolean> {
  const found = await Promise.all(
    RELOCATABLE_LAYOUT.map((name) =>
      stat(join(installDir, name)).then(
        (info) => info.isDirectory(),
        () => false,
      ),
    ),
  );
  return found.every(Boolean);
}

/**
 * The root of a complete copy of `installDir` in `copiesDir` (`idv-postgres-binaries-<digest>`), made now
 * unless a complete one is there. Throws {@link PostgresServerError} when the name is taken by
 * something this process's user did not make as a copy.
 */
export async function reachableCopy(options: { installDir: string; copiesDir: string }): Promise<string> {
  const root = await realpath(options.installDir);
  const entries = await listTree(root, 'as-copied');
  const digest = await treeDigest(entries);
  const copy = join(options.copiesDir, `idv-postgres-binaries-${digest.slice(0, 16)}`);
  const found = await copyProblem(copy, digest);
  if (found === undefined) return copy;
  if (found !== 'missing') await setAside(copy);
  const partial = await mkdtemp(`${copy}.partial-`);
  try {
    await writeTree(entries, partial);
    await chmod(partial, FOLDER_MODE);
    await rename(partial, copy).catch((error: NodeJS.ErrnoException) => {
      // Another run put its copy in place first; that one is checked below.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  const made = await copyProblem(copy, digest);
  if (made !== undefined) throw new PostgresServerError(`copy of ${root} at ${copy} is unusable: ${made}`);
  return copy;
}

/**
 * What keeps `copy` from being used, or undefined when it is complete: `missing`, a difference
 * of content (it is then set aside and made again), or, thrown, a folder not made as a copy.
 */
async function copyProblem(copy: string, digest: string): Promise<string | undefined> {
  const info = await lstat(copy).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!info) return 'missing';
  const ownUid = process.getuid?.();
  if (!info.isDirectory() || (ownUid !== undefined && info.uid !== ownUid) || (info.mode & 0o777) !== 0o755) {
    throw new PostgresServerError(
      `${copy} is in the way of the copy of PostgreSQL's binaries: it is not a folder of mode 0755 ` +
        `owned by uid ${ownUid ?? '?'} (it has uid ${info.uid}, mode ${(info.mode & 0o7777).toString(8)}); remove it`,
    );
  }
  const entries = await listTree(copy, 'as-found');
  if (ownUid !== undefined && entries.some((entry) => entry.mode < 0)) return 'not all of it is ours';
  const found = await treeDigest(entries);
  return found === digest ? undefined : `its content differs (digest ${found.slice(0, 16)})`;
}

/** Moves a damaged copy out of the way (a concurrent run may do the same) and deletes it. */
async function setAside(copy: string): Promise<void> {
  const aside = `${copy}.damaged-${process.pid}-${Date.now()}`;
  try {
    await rename(copy, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await rm(aside, { recursive: true, force: true });
}

/**
 * Every entry below `root`, sorted. `as-copied`: modes as the copy gets them, links within the
 * tree kept (relative) and others replaced by what they point at. `as-found`: modes and links as
 * they are, and a mode of -1 for an entry another user owns (it could change under us).
 */
async function listTree(root: string, view: 'as-copied' | 'as-found'): Promise<Entry[]> {
  const entries: Entry[] = [];
  const ownUid = process.getuid?.();
  const visit = async (folder: string): Promise<void> => {
    for (const name of (await readdir(folder)).sort()) {
      const absolute = join(folder, name);
      const path = relative(root, absolute);
      const info = await lstat(absolute);
      const foreign = view === 'as-found' && ownUid !== undefined && info.uid !== ownUid;
      const mode = (asCopied: number, asFound = info.mode & 0o7777) =>
        foreign ? -1 : view === 'as-copied' ? asCopied : asFound;
      if (info.isDirectory()) {
        entries.push({ path, kind: 'folder', mode: mode(FOLDER_MODE) });
        await visit(absolute);
      } else if (info.isFile()) {
        entries.push({ path, kind: 'file', mode: mode(fileMode(info.mode)), source: absolute });
      } else if (info.isSymbolicLink() && view === 'as-found') {
        entries.push({ path, kind: 'link', mode: mode(0, 0), target: await readlink(absolute) });
      } else if (info.isSymbolicLink()) {
        const resolved = await realpath(absolute);
        if (resolved.startsWith(`${root}${sep}`))
          entries.push({ path, kind: 'link', mode: 0, target: relative(folder, resolved) });
        else
          entries.push({ path, kind: 'file', mode: fileMode((await stat(resolved)).mode), source: resolved });
      }
    }
  };
  await visit(root);
  return entries;
}

function fileMode(mode: number): number {
  return mode & 0o100 ? EXECUTABLE_MODE : FILE_MODE;
}

/** SHA-256 of the entries: paths, kinds, modes, link targets and file contents. */
async function treeDigest(entries: Entry[]): Promise<string> {
  const hash = createHash('sha256');
  for (const entry of entries) {
    hash.update(`${entry.kind}\0${entry.path}\0${entry.mode}\0${entry.target ?? ''}\0`);
    if (entry.source) hash.update(await readFile(entry.source));
  }
  return hash.digest('hex');
}

async function writeTree(entries: Entry[], root: string): Promise<void> {
  for (const entry of entries) {
    const destination = join(root, entry.path);
    if (entry.kind === 'folder') await mkdir(destination);
    else if (entry.kind === 'link') await symlink(entry.target ?? '', destination);
    else await copyFile(entry.source ?? '', destination);
    if (entry.kind !== 'link') await chmod(destination, entry.mode);
  }
}
