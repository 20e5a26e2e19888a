import { commands } from '../../cli/commands/index';
import { runCli } from '../../cli/run-cli';
import { durationProblem, parseDuration } from '../../common/durations';
import { captureIo } from './capture-io';

describe('durations', () => {
  it('reads units and ISO 8601 alike', () => {
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('PT30M')).toBe(1_800_000);
    expect(parseDuration('P1DT2H')).toBe(93_600_000);
    expect(parseDuration('PT0.5S')).toBe(500);
    expect(parseDuration('P')).toBeUndefined();
    expect(parseDuration('PT')).toBeUndefined();
  });

  it('refuses a bare number with a hint and a negative one, and lets a bare zero pass', () => {
    expect(durationProblem('5')).toMatch(
      /^needs a unit: '5' could be seconds or milliseconds; write 5s or 5m/,
    );
    expect(durationProblem('-5m')).toBe("must not be negative (got '-5m')");
    expect(durationProblem('0')).toBeUndefined();
    expect(durationProblem('30m')).toBeUndefined();
    expect(durationProblem(5_000)).toBeUndefined();
  });

  // Checked before anything connects: no stack is running for these.
  it.each([
    [['--timeout', '5'], "idv: --timeout needs a unit: '5' could be seconds or milliseconds; write 5s or 5m"],
    [['--timeout', '0'], "idv: --timeout must be at least 1s, got '0'\n"],
    [['--timeout', '500ms'], "idv: --timeout must be at least 1s, got '500ms'\n"],
    [['--timeout', 'PT720H1S'], "idv: --timeout must be at most 30d, got 'PT720H1S'\n"],
    [['--timeout', `${'9'.repeat(400)}d`], "idv: --timeout must be at most 30d, got '999"],
    [['--redact-after', '366d'], "idv: --redact-after must be at most 365d, got '366d'\n"],
    [['--timeout', '-5m'], "idv: --timeout must not be negative (got '-5m')\n"],
    [
      ['--timeout', 'soon'],
      "idv: --timeout must be a duration such as 30m, 1h or 7d (or ISO 8601 such as PT30M), got 'soon'\n",
    ],
    [['--redact-after', '5'], "idv: --redact-after needs a unit: '5'"],
    [['--redact-after', 'later'], ', or never, got '],
  ])('idv verify %j answers one line naming the option once, exit 2', async (args, expected) => {
    const io = captureIo({ IDV_DATA_DIR: '/nonexistent-idv-data' });
    await expect(runCli(['verify', ...args], commands, io)).resolves.toBe(2);
    expect(io.err()).toContain(expected);
    expect(io.err().split('\n').filter(Boolean)).toHaveLength(1);
    expect(io.err().match(/timeout|redact-after/g)).toHaveLength(1);
  });

  it('idv verify names every option out of bounds in one line', async () => {
    const io = captureIo({ IDV_DATA_DIR: '/nonexistent-idv-data' });
    await expect(
      runCli(['verify', '--timeout', '31d', '--redact-after', '400d', '--results', 'none'], commands, io),
    ).resolves.toBe(2);
    expect(io.err()).toBe(
      "idv: --timeout must be at most 30d, got '31d'; --redact-after must be at most 365d, got '400d'\n",
    );
  });

  it('idv verify takes the bounds themselves, and never for --redact-after', async () => {
    // Past the options, the command looks for a stack: there is none in this data dir.
    for (const args of [
      ['--timeout', '1s', '--redact-after', '365d'],
      ['--timeout', '30d', '--redact-after', 'never'],
      ['--timeout', 'P30D', '--redact-after', '0'],
    ]) {
      const io = captureIo({ IDV_DATA_DIR: '/nonexistent-idv-data' });
      await expect(runCli(['verify', ...args], commands, io)).resolves.toBe(1);
      expect(io.err()).toMatch(/^idv: no running stack in \/nonexistent-idv-data/);
    }
  });
});
