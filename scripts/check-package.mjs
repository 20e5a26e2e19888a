#!/usr/bin/env node
// The package as a business service meets it: `npm pack`, install the tarball into a fresh
// temporary project with nothing else from this repository, and there compile and run a script
// written like the README's example against a running stack (`idv dev` of this repository, on
// free ports): a worker created from the package in the script's own process, and IdvClient
// starting a verification and getting its outcome. Exits non-zero when any step fails.
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'idv-package-'));
const consumer = join(work, 'consumer');
const stackDir = join(work, 'stack');
const keep = process.env.IDV_CHECK_PACKAGE_KEEP === '1';
let stack;

function say(message) {
  process.stdout.write(`[check-package] ${message}\n`);
}

function run(command, args, options = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    throw new Error(`${command} ${args.join(' ')} exited ${result.status ?? result.signal}`);
  }
  return { stdout: result.stdout, ms: Date.now() - started };
}

/** Packs the project (npm runs `prepare`: the build) and checks what the tarball holds. */
function pack() {
  const { stdout } = run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root });
  // `prepare` prints its own lines first; the JSON array starts on a line of its own.
  const [info] = JSON.parse(stdout.slice(stdout.search(/^\[$/m)));
  const paths = info.files.map((file) => file.path);
  const required = [
    'bin/idv.js',
    'dist/cli/main.js',
    'dist/cli/commands.json',
    'dist/package/client.js',
    'dist/package/client.d.ts',
    'dist/package/worker.js',
    'dist/package/workflows.js',
    'dist/api/index.js',
    'dist/emulator/index.js',
  ];
  const missing = required.filter((path) => !paths.includes(path));
  const stray = paths.filter(
    (path) => /^(test|bench|\.tools|\.data|node_modules)\//.test(path) || /(?<!\.d)\.ts$/.test(path),
  );
  if (missing.length > 0 || stray.length > 0) {
    throw new Error(
      `tarball: missing ${missing.join(', ') || '-'}; not for users ${stray.join(', ') || '-'}`,
    );
  }
  say(`packed ${info.filename}: ${paths.length} files, ${Math.round(info.size / 1024)} KiB`);
  return join(work, info.filename);
}

/** Installs the tarball and what a user adds next to it: Temporal's packages (its peers), TypeScript. */
function install(tarball) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const pinned = { ...manifest.devDependencies, ...manifest.dependencies };
  const peers = Object.keys(manifest.peerDependencies ?? {}).map((name) => `${name}@${pinned[name]}`);
  mkdirSync(consumer, { recursive: true });
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'idv-consumer', version: '1.0.0', private: true }, null, 2),
  );
  const dev = [`typescript@${pinned.typescript}`, `@types/node@${pinned['@types/node']}`];
  const { ms } = run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...peers, ...dev],
    { cwd: consumer },
  );
  say(`installed the tarball with ${peers.length} peers in ${(ms / 1000).toFixed(1)} s`);
}

/** Starts `idv dev` of this repository on free ports; resolves with its stack file. */
async function startStack() {
  stack = spawn(process.execPath, [join(root, 'bin', 'idv.js'), 'dev', '--port', '0', '--ui-port', '0'], {
    env: { ...process.env, IDV_DATA_DIR: stackDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  stack.stdout.on('data', (chunk) => (output += chunk));
  stack.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((_, reject) =>
    stack.once('exit', (code) => reject(new Error(`idv dev exited ${code}:\n${output}`))),
  );
  const running = new Promise((resolveRunning) => {
    const check = () => (output.includes('idv dev is running') ? resolveRunning() : undefined);
    stack.stdout.on('data', check);
  });
  await Promise.race([running, exited, deadline(180_000, () => `idv dev did not start:\n${output}`)]);
  const info = JSON.parse(readFileSync(join(stackDir, 'stack.json'), 'utf8'));
  say(`stack: Temporal ${info.temporalAddress}, emulator ${info.emulator.baseUrl}`);
  return info;
}

function deadline(ms, message) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(message())), ms).unref());
}

async function stopStack() {
  if (!stack || stack.exitCode !== null) return;
  const exited = new Promise((resolveExit) => stack.once('exit', resolveExit));
  stack.kill('SIGINT');
  await Promise.race([exited, deadline(30_000, () => 'idv dev did not stop')]).catch(() =>
    stack.kill('SIGKILL'),
  );
}

/** The README's example, as a user writes it in their own project. */
const script = `import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { IdvClient, encryptingDataConverter, openStore, parseEncryptionKeys } from 'idv-temporal/client';
import { createIdentityClient, createVerificationWorker } from 'idv-temporal/worker';

async function main(): Promise<void> {
  const env = process.env;
  const encryptionKeys = parseEncryptionKeys(env.IDV_ENCRYPTION_KEYS ?? '');
  const store = await openStore({ storeUrl: env.IDV_STORE_URL, dataDir: '.data' });
  const taskQueue = 'consumer-verifications';
  const identity = createIdentityClient({ baseUrl: env.IDV_API_BASE_URL!, apiKey: env.IDV_API_KEY! });
  const worker = await createVerificationWorker({
    connection: await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS! }),
    taskQueue,
    identity,
    store,
    encryptionKeys,
  });
  const outcome = await worker.runUntil(async () => {
    const client = new Client({
      connection: await Connection.connect({ address: env.TEMPORAL_ADDRESS! }),
      dataConverter: encryptingDataConverter(encryptionKeys),
    });
    const idv = new IdvClient({ client, store, taskQueue });
    const { handle, nextStep } = await idv.startVerification({
      reference: 'consumer-' + Date.now(),
      verificationProfileId: env.VERIFICATION_PROFILE_ID!,
      provider: 'trinsic-test-database-lookup',
      capabilities: ['PollResult'],
      providerInput: {
        'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode: '123456' },
      },
      timeout: '5m',
    });
    console.log('next step: ' + (nextStep.nextStep?.method ?? 'none'));
    return await handle.result();
  });
  await identity.close();
  await store.close();
  console.log(JSON.stringify({ status: outcome.status, sessionId: outcome.sessionId !== undefined }));
  if (outcome.status !== 'succeeded') process.exitCode = 1;
}

void main();
`;

/** Compiles the script with the project's own TypeScript settings of a strict Node project. */
function compile() {
  writeFileSync(join(consumer, 'main.ts'), script);
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      // As `tsc --init` writes it: skipLibCheck (Temporal's own declarations need @types/ms otherwise).
      compilerOptions: {
        target: 'ES2022',
        module: 'node16',
        moduleResolution: 'node16',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
      },
      files: ['main.ts'],
    }),
  );
  const { ms } = run(join(consumer, 'node_modules', '.bin', 'tsc'), ['-p', consumer], { cwd: consumer });
  say(`compiled main.ts against the package's declarations in ${(ms / 1000).toFixed(1)} s`);
}

function runScript(info) {
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: info.temporalAddress,
    IDV_API_BASE_URL: info.emulator.baseUrl,
    IDV_API_KEY: info.emulator.apiKey,
    VERIFICATION_PROFILE_ID: info.emulator.verificationProfileId,
    IDV_ENCRYPTION_KEYS: `check:${Buffer.alloc(32, 7).toString('base64')}`,
  };
  delete env.IDV_STORE_URL;
  const { stdout, ms } = run(process.execPath, ['main.js'], { cwd: consumer, env, timeout: 240_000 });
  const last = JSON.parse(stdout.trim().split('\n').pop());
  if (last.status !== 'succeeded' || last.sessionId !== true)
    throw new Error(`unexpected outcome: ${stdout}`);
  say(`the script's own worker ran a verification to '${last.status}' in ${(ms / 1000).toFixed(1)} s`);
  const help = run(join(consumer, 'node_modules', '.bin', 'idv'), ['--help'], { cwd: consumer });
  if (!help.stdout.includes('Usage: idv')) throw new Error('idv --help from the package printed no usage');
  say(`the package's idv binary answers --help in ${help.ms} ms`);
}

try {
  const tarball = pack();
  install(tarball);
  compile();
  const info = await startStack();
  runScript(info);
  say('ok');
} catch (error) {
  process.stderr.write(`[check-package] FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await stopStack();
  if (keep) say(`kept ${work}`);
  else if (existsSync(work)) rmSync(work, { recursive: true, force: true });
}
