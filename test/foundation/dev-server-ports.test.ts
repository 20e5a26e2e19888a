import { createServer, type Server } from 'node:net';
import { startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { freePort, PortTakenError } from '../../workers/dev/free-port';
import { startDevServer } from '../../workers/dev/temporal-dev-server';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOST = '127.0.0.1';

async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return { port: address.port, server };
}

const release = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

// A port picked free can be taken before the server binds it (another process's connection
// lands on it): a port the stack picked itself is picked again, a port the user named is refused.
describe('the dev server’s ports', () => {
  it('picks another port when one it picked is taken before the server binds it', async () => {
    const held = await holdPort();
    const picks: number[] = [];
    const pickPort = async () => {
      const port = picks.length === 1 ? held.port : await freePort();
      picks.push(port);
      return port;
    };
    try {
      const server = await startDevServer({ uiPort: 0 }, pickPort);
      try {
        expect(picks).toHaveLength(4);
        expect(picks[1]).toBe(held.port);
        expect(server.uiUrl).toBe(`http://${HOST}:${picks[3]}`);
        const ui = await fetch(server.uiUrl ?? 'missing');
        await ui.arrayBuffer();
        expect(ui.status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      await release(held.server);
    }
  });

  it('refuses a port the user named when it is taken, naming the option', async () => {
    const held = await holdPort();
    try {
      const started = startDevServer({ uiPort: held.port });
      await expect(started).rejects.toThrow(PortTakenError);
      await expect(started).rejects.toThrow(`port ${held.port} on ${HOST} is taken`);
      await expect(started).rejects.toThrow('--ui-port');
    } finally {
      await release(held.server);
    }
  });

  it('lets the web UI of the embedded stack call its codec server from the port it ends on', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-dev-'));
    const stack = await startEmbeddedStack({ dataDir, temporalPort: 0, uiPort: 0, worker: false });
    try {
      const origin = stack.info.temporalUiUrl ?? 'missing';
      const codec = stack.info.codecEndpoint ?? 'missing';
      const preflight = await fetch(`${codec}/decode`, { method: 'OPTIONS', headers: { Origin: origin } });
      await preflight.arrayBuffer();
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      const stranger = await fetch(`${codec}/decode`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://127.0.0.1:1' },
      });
      await stranger.arrayBuffer();
      expect(stranger.status).toBe(403);
    } finally {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps the first line of a panic and the end of the output when the server exits during start-up', async () => {
    // A CLI that panics as the dev server once did on a restart: the cause on the first line,
    // then a dump of every goroutine far longer than the output kept.
    const dir = await mkdtemp(join(tmpdir(), 'idv-panicking-cli-'));
    const cli = join(dir, 'temporal');
    await writeFile(
      cli,
      [
        '#!/bin/sh',
        'echo "panic: could not build arguments for function temporal.NewServerFx" >&2',
        'i=0; while [ $i -lt 500 ]; do echo "goroutine $i [running]: a frame of the dump" >&2; i=$((i+1)); done',
        'echo "the last line" >&2',
        'exit 2',
      ].join('\n'),
    );
    await chmod(cli, 0o700);
    const saved = process.env.TEMPORAL_CLI_PATH;
    process.env.TEMPORAL_CLI_PATH = cli;
    try {
      const started = startDevServer({ port: await freePort() });
      await expect(started).rejects.toThrow('exited during start-up: panic: could not build arguments');
      await expect(started).rejects.toThrow(/characters left out[\s\S]*the last line$/);
    } finally {
      if (saved === undefined) delete process.env.TEMPORAL_CLI_PATH;
      else process.env.TEMPORAL_CLI_PATH = saved;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
