import { existsSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { PostgresServerError } from './postgres-error';

// initdb and postgres refuse to run as root. When this process is root (CI containers, dev
// sandboxes), both run as an unprivileged user instead, `nobody` unless IDV_TEST_POSTGRES_USER
// names another, through util-linux's `setpriv --reuid --regid --clear-groups` (setpriv execs, so
// the spawned pid is postgres itself and our signals reach it). Without setpriv or such a user,
// starting fails with a message saying so.
//
// Whenever setpriv is available it also sets a parent-death signal (SIGINT, a fast shutdown), so
// a server never outlives a killed jest process.

/** An unprivileged user the server runs as. */
export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/** How the server's binaries are run. */
export interface RunAs {
  /** Command prefix (setpriv and its options), empty when the binaries run directly. */
  prefix: string[];
  /** The unprivileged user the server runs as when we are root. */
  user: ServerUser | undefined;
}

/** How to run the server's binaries from this process (as it, or as an unprivileged user when root). */
export function privilegeDrop(): RunAs {
  const setpriv = findExecutable('setpriv');
  const deathSignal = ['--pdeathsig', 'SIGINT'];
  if (process.getuid?.() !== 0) {
    return { prefix: setpriv ? [setpriv, ...deathSignal, '--'] : [], user: undefined };
  }
  const name = process.env.IDV_TEST_POSTGRES_USER || 'nobody';
  const rootHint =
    'initdb and postgres refuse to run as root; run the tests as a non-root user, or make ' +
    `util-linux's setpriv and the user "${name}" (IDV_TEST_POSTGRES_USER) available`;
  if (!setpriv) throw new PostgresServerError(`running as root but setpriv is not on PATH: ${rootHint}`);
  const user = passwdEntry(name);
  if (!user || user.uid === 0) {
    throw new PostgresServerError(`running as root but there is no non-root user "${name}": ${rootHint}`);
  }
  const uid = String(user.uid);
  const gid = String(user.gid);
  return {
    prefix: [setpriv, '--reuid', uid, '--regid', gid, '--clear-groups', ...deathSignal, '--'],
    user,
  };
}

/** The file and arguments that run `binary` as {@link RunAs} says. */
export function command(runAs: RunAs, binary: string, args: string[]): [string, string[]] {
  const [head, ...rest] = [...runAs.prefix, binary, ...args];
  return [head!, rest];
}

/**
 * Throws {@link PostgresServerError} naming the first folder on the way to `path` (as written, and
 * with links resolved) that `user` cannot enter, with `why` it needs to.
 */
export function requireReachable(path: string, user: ServerUser, why: string): void {
  const blocked = blockedFolder(path, user);
  if (blocked !== undefined)
    throw new PostgresServerError(
      `PostgreSQL runs as user ${user.name}, which cannot enter ${blocked}: ${why}`,
    );
}

/** The first folder on the way to `path` that `user` cannot enter (by mode bits), if any. */
export function blockedFolder(path: string, user: ServerUser): string | undefined {
  const written = resolve(path);
  let real: string;
  try {
    real = realpathSync(written);
  } catch {
    real = written;
  }
  for (const end of real === written ? [written] : [written, real]) {
    const blocked = foldersTo(end).find((folder) => {
      const info = statSync(folder, { throwIfNoEntry: false });
      return info?.isDirectory() === true && !canEnter(info, user);
    });
    if (blocked !== undefined) return blocked;
  }
  return undefined;
}

/** `/`, then each folder down to `path` itself. */
function foldersTo(path: string): string[] {
  const folders = [path];
  while (dirname(folders[0]!) !== folders[0]) folders.unshift(dirname(folders[0]!));
  return folders;
}

/** Search permission as the kernel grants it to a user whose groups setpriv cleared. */
function canEnter(info: Stats, user: ServerUser): boolean {
  if (info.uid === user.uid) return (info.mode & 0o100) !== 0;
  if (info.gid === user.gid) return (info.mode & 0o010) !== 0;
  return (info.mode & 0o001) !== 0;
}

function passwdEntry(name: string): ServerUser | undefined {
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of passwd.split('\n')) {
    const [entryName, , uid, gid] = line.split(':');
    if (entryName === name && uid && gid) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/sbin'];
  return dirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
}
