import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client, Connection } from '@temporalio/client';
import { type Command } from '../../cli/command';
import { runCli } from '../../cli/run-cli';
import { keyringWorkflowId } from '../../keyring/shared';
import { harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';
import { idvArgs } from '../harness/idv-command';
import { uniqueTaskQueue } from '../harness/worker';
import { captureIo } from './capture-io';

const forever: Command = {
  name: 'forever',
  summary: 'never ends',
  usage: 'forever',
  options: {},
  run: () => new Promise<number>(() => {}),
};

describe('Ctrl-C', () => {
  it('ends a command that does not stop by itself at the first signal, with 130', async () => {
    const io = captureIo({}, Promise.resolve('SIGINT'));
    await expect(runCli(['forever'], [forever], io)).resolves.toBe(130);
    expect(io.err()).toBe('idv: interrupted (SIGINT)\n');
  });

  it('gives SIGTERM its own status, 143', async () => {
    const io = captureIo({}, Promise.resolve('SIGTERM'));
    await expect(runCli(['forever'], [forever], io)).resolves.toBe(143);
  });

  it('stops `idv verify --wait` (no worker: it waits) within seconds of one SIGINT', async () => {
    const reference = `interrupt-${process.pid}-${Date.now()}`;
    const taskQueue = uniqueTaskQueue('nobody-polls');
    const child = spawn(
      process.execPath,
      idvArgs(
        'verify',
        '--reference',
        reference,
        '--profile',
        '3f1c7a52-9d7e-4b7a-8a55-0c2b4f8e6d11',
        '--provider',
        'some-provider',
        '--capability',
        'PollResult',
        '--wait',
      ),
      {
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: harnessValue(harnessEnv.temporalAddress),
          IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
          IDV_TASK_QUEUE: taskQueue,
          IDV_DATA_DIR: `/tmp/idv-interrupt-${process.pid}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
    // It is waiting once the keyring it started exists: the verification's data key waits for a
    // worker to answer the keyring, and none comes.
    const connection = await Connection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    try {
      const handle = new Client({ connection }).workflow.getHandle(keyringWorkflowId(taskQueue));
      await eventually(() => {
        if (child.exitCode !== null) throw new Error(`idv verify exited ${child.exitCode}: ${stderr}`);
        return handle.describe().catch(() => undefined);
      }, 'the keyring to start');
    } finally {
      await connection.close();
    }
    const signalled = Date.now();
    child.kill('SIGINT');
    const [code] = await exited;
    expect(Date.now() - signalled).toBeLessThan(5_000);
    expect(code).toBe(130);
    expect(stderr).toContain('idv: interrupted (SIGINT)');
  }, 30_000);

  describe('idv watch', () => {
    const stack = useVerificationStack();

    it('stops within seconds of one SIGINT while it follows a verification', async () => {
      await stack().control('PUT', '/script', { outcome: 'manual' });
      const { handle } = await stack().idv.startVerification(stack().request({ redactAfter: 'never' }));
      const child = spawn(process.execPath, idvArgs('watch', handle.reference), {
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: harnessValue(harnessEnv.temporalAddress),
          IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
          IDV_TASK_QUEUE: stack().taskQueue,
          IDV_DATA_DIR: stack().dataDir,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
      try {
        // Following: it printed the verification's progress (the user has not finished).
        await eventually(() => {
          if (child.exitCode !== null) throw new Error(`idv watch exited ${child.exitCode}`);
          return Promise.resolve(stdout.includes('pending') ? true : undefined);
        }, 'idv watch to print progress');
        const signalled = Date.now();
        child.kill('SIGINT');
        const [code] = await exited;
        expect(Date.now() - signalled).toBeLessThan(5_000);
        expect(code).toBe(130);
      } finally {
        await handle.cancel('test over');
        await stack().control('PUT', '/script', { outcome: 'by-input' });
      }
    }, 30_000);
  });
});
