import { parseArgs, type ParseArgsConfig } from 'node:util';
import { type Command, type CommandArgs, CommandFailedError, type CommandIo, UsageError } from './command';
import { packageVersion } from '../workers/package-root';
import { commandHelp, overviewHelp } from './help';

/** Exit statuses of every `idv` command. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

/** The status of a command ended by a signal: 128 + the signal's number, as shells report it. */
export function interruptedExitCode(signal: string): number {
  return signal === 'SIGTERM' ? 143 : 130;
}

/**
 * Runs one `idv` invocation and resolves to its exit status. Errors end as one line on stderr;
 * a stack trace is printed only for unexpected errors and only with IDV_DEBUG=1.
 */
export async function runCli(
  argv: readonly string[],
  commands: readonly Command[],
  givenIo: CommandIo,
): Promise<number> {
  let io = givenIo;
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(overviewHelp(commands));
    return name === undefined ? exitCodes.usage : exitCodes.ok;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`idv ${packageVersion()}\n`);
    return exitCodes.ok;
  }
  const command = commands.find((candidate) => candidate.name === name);
  try {
    if (!command) throw new UsageError(`unknown command '${name}' (see idv --help)`);
    const parsed = parse(command, rest);
    const output = outputFormat(parsed.values);
    // json and jsonl are machine output: commands see --json; printJson writes the format.
    if (output !== 'table') parsed.values.json = true;
    io = { ...io, output };
    if (parsed.values.help === true) {
      io.stdout.write(commandHelp(command));
      return exitCodes.ok;
    }
    const [stray] = parsed.positionals;
    if (stray !== undefined && !command.takesArguments)
      throw new UsageError(`unexpected argument '${stray}' (see idv ${command.name} --help)`);
    const metrics = command.metrics?.(parsed, io.env);
    io.installRuntime?.(metrics ? { metrics } : {});
    const running = command.run(parsed, io);
    if (command.stopsGracefully) return await running;
    // A Ctrl-C ends the command at once (its late failure, if any, is not reported).
    running.catch(() => undefined);
    const interrupted = io.stopRequested.then((signal) => {
      io.stderr.write(`idv: interrupted (${signal})\n`);
      return interruptedExitCode(signal);
    });
    return await Promise.race([running, interrupted]);
  } catch (error) {
    return report(error, io);
  }
}

function parse(command: Command, args: string[]) {
  const options: NonNullable<ParseArgsConfig['options']> = {
    help: { type: 'boolean', short: 'h' },
    json: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
  };
  for (const [optionName, spec] of Object.entries(command.options)) {
    options[optionName] = {
      type: spec.type,
      ...(spec.multiple ? { multiple: true } : {}),
      ...(spec.short ? { short: spec.short } : {}),
    };
  }
  try {
    return parseArgs({
      args: joinNegativeValues(args, command),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${message.split('\n')[0] ?? message} (see idv ${command.name} --help)`);
  }
}

function report(error: unknown, io: CommandIo): number {
  if (error instanceof UsageError) {
    io.stderr.write(`idv: ${error.message}\n`);
    return exitCodes.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`idv: ${message.split('\n')[0]}\n`);
  if (!(error instanceof CommandFailedError) && io.env.IDV_DEBUG === '1' && error instanceof Error) {
    io.stderr.write(`${error.stack ?? ''}\n`);
  }
  return exitCodes.failed;
}

/**
 * `--timeout -5m` as `--timeout=-5m`: parseArgs calls a value starting with `-` ambiguous; a
 * number-like one is meant as the value, and the option's own check then says what is wrong.
 */
function joinNegativeValues(args: string[], command: Command): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    const next = args[index + 1];
    const spec = arg.startsWith('--') ? command.options[arg.slice(2)] : undefined;
    if (spec?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      index += 1;
    } else joined.push(arg);
  }
  return joined;
}

const outputFormats = ['table', 'json', 'jsonl'] as const;

/** `--output table|json|jsonl` (as the Temporal CLI spells it); `--json` is `--output json`. */
function outputFormat(values: CommandArgs['values']): NonNullable<CommandIo['output']> {
  const value = values.output;
  if (value === undefined) return values.json === true ? 'json' : 'table';
  if (typeof value !== 'string' || !outputFormats.includes(value as (typeof outputFormats)[number]))
    throw new UsageError(`--output must be one of ${outputFormats.join(', ')}, got '${String(value)}'`);
  if (values.json === true && value !== 'json') throw new UsageError(`--json and --output ${value} disagree`);
  return value as NonNullable<CommandIo['output']>;
}
