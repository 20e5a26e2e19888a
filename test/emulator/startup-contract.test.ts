import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { idvArgs } from '../harness/idv-command';

async function startCli(args: string[]): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const child = spawn(process.execPath, idvArgs('emulator', ...args), { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return { child, info: JSON.parse(line) as Record<string, unknown> };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  const exited = once(child, 'exit');
  child.kill(signal);
  const [code] = (await exited) as [number | null];
  return code;
}

describe('idv emulator start-up contract', () => {
  it('prints one JSON line with generated key, tenant and profile, serves, and stops on SIGTERM', async () => {
    const { child, info } = await startCli(['--port', '0']);
    expect(Object.keys(info).sort()).toEqual([
      'agentBaseUrl',
      'agentKeys',
      'apiKeys',
      'baseUrl',
      'controlUrl',
      'verificationProfiles',
    ]);
    expect(info.apiKeys).toHaveLength(1);
    expect(Object.keys(info.agentKeys as object)).toHaveLength(1);
    expect(info.verificationProfiles).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        redactionPeriod: 'P30D',
        sessionExpiration: 'PT2H',
        apiKey: (info.apiKeys as string[])[0],
      },
    ]);
    const health = await fetch(`${String(info.controlUrl)}/health`);
    expect(await health.json()).toEqual({ ok: true });
    expect(await stop(child, 'SIGTERM')).toBe(0);
  });

  it('uses the given keys and tenants and stops on SIGINT', async () => {
    const { child, info } = await startCli([
      '--port',
      '0',
      '--api-key',
      'k1',
      '--api-key',
      'k2',
      '--agent-key',
      'acme=a1',
      '--seed',
      '5',
    ]);
    expect(info.apiKeys).toEqual(['k1', 'k2']);
    expect(info.agentKeys).toEqual({ acme: 'a1' });
    expect(info.verificationProfiles).toHaveLength(2);
    expect(String(info.agentBaseUrl)).toBe(`${String(info.baseUrl)}/credentials/v1`);
    expect(await stop(child, 'SIGINT')).toBe(0);
  });

  it('rejects a malformed --agent-key with exit 2 and one line', async () => {
    const child = spawn(process.execPath, idvArgs('emulator', '--agent-key', 'nokey'), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(2);
    expect(stderr).toBe("idv: --agent-key takes TENANT=KEY, got 'nokey'\n");
  });
});
