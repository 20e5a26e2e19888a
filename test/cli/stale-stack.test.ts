import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir } from '../../workers/config';
import { writeStackInfo } from '../../workers/dev/stack-file';
import { idvArgs } from '../harness/idv-command';

describe('a stack file whose idv dev has gone', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'idv-stale-'));
    await mkdir(join(root, '.data'), { recursive: true });
    // A pid no process has: the stack stopped without removing its file.
    await writeStackInfo(join(root, '.data'), {
      pid: 2 ** 22 + 17,
      temporalAddress: '127.0.0.1:7999',
      namespace: 'default',
      taskQueue: 'identity-verification',
    });
    await mkdir(join(root, 'sub', 'folder'), { recursive: true });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('is named with its address, from the stopped pid, without trying to connect', async () => {
    const env = { ...process.env };
    for (const name of ['TEMPORAL_ADDRESS', 'TEMPORAL_PROFILE', 'TEMPORAL_CONFIG_FILE', 'IDV_DATA_DIR'])
      delete env[name];
    const child = spawn(process.execPath, idvArgs('status', 'order-1'), {
      cwd: join(root, 'sub', 'folder'),
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(stderr).toBe(
      `idv: the stack in ${join(root, '.data')} is not running (its stack.json names Temporal at 127.0.0.1:7999, but idv dev pid ${2 ** 22 + 17} has stopped): start \`idv dev\`, or set TEMPORAL_ADDRESS\n`,
    );
  }, 60_000);

  it('is found from a subfolder: the data dir is the nearest .data with a stack file above', () => {
    expect(defaultDataDir(join(root, 'sub', 'folder'))).toBe(join(root, '.data'));
    expect(defaultDataDir(tmpdir())).toBe(join(tmpdir(), '.data'));
  });
});
