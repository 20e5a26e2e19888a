import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeStackInfo } from '../../workers/dev/stack-file';
import { devEncryptionKeys } from '../../workers/encryption-keys-source';
import { idvArgs } from '../harness/idv-command';

/** Runs `idv <args>` as a person does, in its own process; resolves to its exit code and output. */
async function idv(
  args: string[],
  dataDir = '/nonexistent-idv-data',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, IDV_DATA_DIR: dataDir };
  for (const name of ['TEMPORAL_ADDRESS', 'TEMPORAL_PROFILE', 'TEMPORAL_CONFIG_FILE', 'IDV_ENCRYPTION_KEYS'])
    delete env[name];
  const child = spawn(process.execPath, idvArgs(...args), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Durations `idv verify` takes only within the bounds of a verification. */
const outOfBounds: [string[], string][] = [
  [['verify', '--timeout', '31d'], "idv: --timeout must be at most 30d, got '31d'\n"],
  [['verify', '--timeout', '99999999d'], "idv: --timeout must be at most 30d, got '99999999d'\n"],
  [['verify', '--redact-after', '99999999d'], "idv: --redact-after must be at most 365d, got '99999999d'\n"],
];

describe('the idv command line in its own process', () => {
  it.each([
    [['verify', '--timeout', '5'], "idv: --timeout needs a unit: '5' could be seconds or milliseconds"],
    [['verify', '--timeout', '-5m'], "idv: --timeout must not be negative (got '-5m')"],
    [['verify', '--redact-after', 'soon'], '--redact-after must be a duration such as 30m, 1h or 7d'],
    [['verify', 'stray'], "idv: unexpected argument 'stray' (see idv verify --help)"],
    [['list', '--limit', '0'], "idv: --limit must be at least 1, got '0'"],
    [['list', '--output', 'yaml'], "idv: --output must be one of table, json, jsonl, got 'yaml'"],
    ...outOfBounds,
  ])(
    'idv %j: one line, exit 2, before looking for a stack',
    async (args, expected) => {
      const result = await idv(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(expected);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    },
    60_000,
  );

  it('idv --version prints the version', async () => {
    const result = await idv(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^idv \d+\.\d+\.\d+\n$/) });
  }, 60_000);
});

describe('the idv command line with a running stack', () => {
  // The stack file of a running `idv dev` (this process's pid) whose Temporal, emulator and
  // receiver are one listener that counts who connects to it and hangs up.
  let dataDir: string;
  let listener: Server;
  let connections = 0;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-cli-stack-'));
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const address = listener.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await devEncryptionKeys(dataDir);
    await writeStackInfo(dataDir, {
      pid: process.pid,
      temporalAddress: url.slice('http://'.length),
      namespace: 'default',
      taskQueue: 'identity-verification',
      receiverUrl: url,
      emulator: {
        baseUrl: url,
        agentBaseUrl: url,
        controlUrl: url,
        apiKey: 'unused',
        verificationProfileId: randomUUID(),
        agentKeys: {},
      },
    });
  });
  afterAll(async () => {
    listener.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it.each(outOfBounds)(
    'idv %j: one line, exit 2, without connecting',
    async (args, expected) => {
      const before = connections;
      const result = await idv(args, dataDir);
      expect(result).toMatchObject({ code: 2, stderr: expected });
      expect(connections).toBe(before);
    },
    60_000,
  );
});
