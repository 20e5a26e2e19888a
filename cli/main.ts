import type * as RuntimeModule from '../workers/telemetry/runtime';
import type * as CommandIndex from './commands/index';
import { type Command, type CommandIo } from './command';
import { lazyCommands } from './lazy-commands';
import { runCli } from './run-cli';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when needed: the compiled
   binary reads the commands from its build manifest and loads the one that runs */
const commands: readonly Command[] =
  lazyCommands(__dirname) ?? (require('./commands/index') as typeof CommandIndex).commands;
const installRuntime: CommandIo['installRuntime'] = (settings) =>
  (require('../workers/telemetry/runtime') as typeof RuntimeModule).installRuntime(settings);
/* eslint-enable @typescript-eslint/no-require-imports */

const stopRequested = new Promise<string>((resolveStop) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolveStop(signal));
});

const io: CommandIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  stopRequested,
  // After the arguments are parsed (the metrics endpoint is an option), before the command runs.
  installRuntime,
};

void runCli(process.argv.slice(2), commands, io).then((code) => {
  process.exitCode = code;
  // Long-running commands leave nothing behind; short ones must not wait on idle sockets.
  process.exit(code);
});
