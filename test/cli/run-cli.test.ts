import { commands } from '../../cli/commands/index';
import { runCli } from '../../cli/run-cli';
import { captureIo } from './capture-io';

describe('idv command line', () => {
  it('lists the commands with --help and exits 0', async () => {
    const io = captureIo();
    await expect(runCli(['--help'], commands, io)).resolves.toBe(0);
    expect(io.out()).toContain('dev');
  });

  it('answers an unknown command with one line and exit 2', async () => {
    const io = captureIo();
    await expect(runCli(['frobnicate'], commands, io)).resolves.toBe(2);
    expect(io.err()).toBe("idv: unknown command 'frobnicate' (see idv --help)\n");
  });

  it('answers an unknown option with one line and exit 2', async () => {
    const io = captureIo();
    await expect(runCli(['dev', '--bogus'], commands, io)).resolves.toBe(2);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toContain("'--bogus'");
  });

  it('rejects a port that is not a number with exit 2', async () => {
    const io = captureIo();
    await expect(runCli(['dev', '--port', 'abc'], commands, io)).resolves.toBe(2);
    expect(io.err()).toBe("idv: --port must be a port number from 0 to 65535, got 'abc'\n");
  });

  it('documents every option of dev in its help', async () => {
    const io = captureIo();
    await expect(runCli(['dev', '--help'], commands, io)).resolves.toBe(0);
    for (const option of ['--port N', '--ui-port N', '--data-dir DIR', '--json', '--help']) {
      expect(io.out()).toContain(option);
    }
  });
});
