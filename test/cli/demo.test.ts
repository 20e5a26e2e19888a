import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { idvArgs } from '../harness/idv-command';

// `idv demo` as a user runs it: its own embedded stack, every scenario, exit 0.
describe('idv demo', () => {
  it('runs every scenario (verifications, a return through the receiver, onboarding, migration) and passes', async () => {
    const child = spawn(process.execPath, idvArgs('demo', '--json'), {
      env: { ...process.env, IDV_DATA_DIR: join(__dirname, 'no-such-dir') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`idv demo exited ${code}: ${stdout}\n${stderr}`);
    const summary = JSON.parse(stdout) as {
      passed: number;
      failed: number;
      results: Array<{ scenario: string; ok: boolean }>;
    };
    expect(summary.failed).toBe(0);
    expect(summary.results.map((result) => result.scenario)).toEqual(
      expect.arrayContaining([
        'return without its token is refused',
        'return through the receiver’s tokened URL',
        '  the verification learns its outcome at once',
        'onboarding driven by agent events through the receiver',
        'migration dry run writes nothing',
        'migration apply',
        'migration applied again',
      ]),
    );
    // Its own process starts a whole stack and bundles the workflows: 47 s on a busy CI.
  }, 120_000);
});
