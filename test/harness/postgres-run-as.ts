import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
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
