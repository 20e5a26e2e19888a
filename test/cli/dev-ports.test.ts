import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idvArgs } from '../harness/idv-command';

/** Runs `idv dev <args>` to its end; resolves to its exit code and stderr. */
async function dev(args: string[], dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, idvArgs('dev', '--data-dir', dataDir, ...args), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

describe('a second idv dev', () => {
  let holder: Server;
  let port: number;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-dev-ports-'));
    // Another stack's server on the port asked for.
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a taken Temporal port in one line naming it, before starting anything', async () => {
    const { code, stderr } = await dev(['--port', String(port), '--ui-port', '0'], dataDir);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `idv: port ${port} on 127.0.0.1 is taken (another idv dev?): choose another with --port, or 0 for a free one\n`,
    );
  }, 30_000);

  it('refuses a taken web UI port the same way', async () => {
    const { code, stderr } = await dev(['--port', '0', '--ui-port', String(port)], dataDir);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `port ${port} on 127.0.0.1 is taken (another idv dev?): choose another with --ui-port`,
    );
  }, 30_000);
});
