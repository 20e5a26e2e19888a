import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { idvArgs } from '../harness/idv-command';

/** Runs `idv <args>` as a person does, in its own process; resolves to its exit code and output. */
async function idv(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, idvArgs(...args), {
    env: { ...process.env, IDV_DATA_DIR: '/nonexistent-idv-data' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

describe('the idv command line in its own process', () => {
  it.each([
    [['verify', '--timeout', '5'], "idv: --timeout needs a unit: '5' could be seconds or milliseconds"],
    [['verify', '--timeout', '-5m'], "idv: --timeout must not be negative (got '-5m')"],
    [['verify', '--redact-after', 'soon'], '--redact-after must be a duration such as 30m, 1h or 7d'],
    [['verify', 'stray'], "idv: unexpected argument 'stray' (see idv verify --help)"],
    [['list', '--limit', '0'], "idv: --limit must be at least 1, got '0'"],
    [['list', '--output', 'yaml'], "idv: --output must be one of table, json, jsonl, got 'yaml'"],
  ])(
    'idv %j: one line, exit 2, before looking for a stack',
    async (args, expected) => {
      const result = await idv(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(expected);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    },
    20_000,
  );

  it('idv --version prints the version', async () => {
    const result = await idv('--version');
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^idv \d+\.\d+\.\d+\n$/) });
  }, 20_000);
});
