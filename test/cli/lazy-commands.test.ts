import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lazyCommands, MANIFEST } from '../../cli/lazy-commands';
import { runCli } from '../../cli/run-cli';
import { captureIo } from './capture-io';

describe('commands from the build manifest', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idv-manifest-'));
    await writeFile(
      join(dir, MANIFEST),
      JSON.stringify([
        {
          name: 'hello',
          summary: 'says hello',
          usage: 'hello',
          options: {},
          module: 'hello.js',
          exportName: 'helloCommand',
        },
      ]),
    );
    // The module records that it was loaded: help must not load it, running must.
    await writeFile(
      join(dir, 'hello.js'),
      "globalThis.__helloLoaded = true;\nexports.helloCommand = { name: 'hello', run: async (_a, io) => { io.stdout.write('hello\\n'); return 0; } };\n",
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('shows help without loading any command, and loads the one that runs', async () => {
    const commands = lazyCommands(dir);
    expect(commands?.map((command) => command.name)).toEqual(['hello']);
    const help = captureIo();
    await expect(runCli(['--help'], commands ?? [], help)).resolves.toBe(0);
    expect(help.out()).toContain('says hello');
    expect((globalThis as { __helloLoaded?: boolean }).__helloLoaded).toBeUndefined();
    const io = captureIo();
    await expect(runCli(['hello'], commands ?? [], io)).resolves.toBe(0);
    expect(io.out()).toBe('hello\n');
    expect((globalThis as { __helloLoaded?: boolean }).__helloLoaded).toBe(true);
  });

  it('is absent when run from the sources', () => {
    expect(lazyCommands(join(dir, 'nowhere'))).toBeUndefined();
  });
});
