import { installRuntime } from '../workers/telemetry/runtime';
import { type CommandIo } from './command';
import { commands } from './commands/index';
import { runCli } from './run-cli';

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
