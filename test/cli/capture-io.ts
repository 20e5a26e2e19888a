import { type CommandIo } from '../../cli/command';

/** A {@link CommandIo} that records what a command prints. */
export interface CapturedIo extends CommandIo {
  out(): string;
  err(): string;
}

/** Builds captured I/O; `stop` resolves `stopRequested` like Ctrl-C would. */
export function captureIo(
  env: NodeJS.ProcessEnv = {},
  stop: Promise<string> = new Promise(() => {}),
): CapturedIo {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    stopRequested: stop,
    out: () => stdout,
    err: () => stderr,
  };
}
