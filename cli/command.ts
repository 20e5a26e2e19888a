import { type MetricsAddress } from '../workers/telemetry/runtime';

/** One option of a command, as parsed by `node:util` parseArgs and shown by `--help`. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  multiple?: boolean;
  short?: string;
  /** Placeholder shown in help, e.g. `N` for `--port N`. */
  valueName?: string;
}

/** Where a command reads and writes; injected so tests can capture it. */
export interface CommandIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** What a command reads as its input (`idv verify --input-file -`). @default process.stdin */
  stdin?: AsyncIterable<Uint8Array | string>;
  /** `--output`: `table` (text for people), `json` (one document), `jsonl` (a list as one object per line). @default table */
  output?: 'table' | 'json' | 'jsonl';
  /** Resolves when the user asks a long-running command to stop (SIGINT/SIGTERM). */
  stopRequested: Promise<string>;
  /**
   * Installs the process's Temporal runtime before the command runs (once; the `idv` binary
   * does it, tests' processes have theirs already).
   */
  installRuntime?: (settings: { metrics?: MetricsAddress }) => void;
}

/** Parsed arguments handed to {@link Command.run}. */
export interface CommandArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** An `idv` subcommand. */
export interface Command {
  name: string;
  summary: string;
  /** Usage line after `idv `, e.g. `dev [--port N]`. */
  usage: string;
  options: Record<string, OptionSpec>;
  /**
   * The command stops by itself on SIGINT/SIGTERM (it awaits `io.stopRequested` and shuts down
   * what it started). Any other command is ended at the first signal, with 130 / 143.
   */
  stopsGracefully?: true;
  /** The command reads positional arguments (a reference, a subcommand); others refuse any. */
  takesArguments?: true;
  /** The Prometheus endpoint the command asks of the runtime (`--metrics-port`); none by default. */
  metrics?(args: CommandArgs, env: NodeJS.ProcessEnv): MetricsAddress | undefined;
  /** Resolves to the exit code: 0 success, 1 failure. Usage mistakes throw {@link UsageError}. */
  run(args: CommandArgs, io: CommandIo): Promise<number>;
}

/** Thrown when the command line itself is wrong; exits with status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Thrown for an expected failure whose message is enough for the user; exits with status 1. */
export class CommandFailedError extends Error {
  override readonly name = 'CommandFailedError';
}
