import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type EmulatorInfo } from '../../emulator/emulator';

/** An emulator in its own process (so load generator and server do not share an event loop). */
export async function spawnEmulator(
  args: string[] = [],
): Promise<{ info: EmulatorInfo; child: ChildProcess; stop(): Promise<void> }> {
  const idv = join(__dirname, '..', '..', 'bin', 'idv.js');
  const child = spawn(process.execPath, [idv, 'emulator', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return {
    info: JSON.parse(line) as EmulatorInfo,
    child,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
