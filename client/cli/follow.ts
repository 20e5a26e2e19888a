import { type VerificationOutcome } from '../../domain/verification';
import { type VerificationHandle } from '../verification-handle';
import { type CommandIo } from './command';
import { progressLine } from './output';

/**
 * Follows a verification to its outcome. On a terminal the progress line is redrawn in place;
 * otherwise (and with `live` false) only changes are printed, one per line.
 */
export async function followProgress(
  handle: VerificationHandle,
  io: CommandIo,
  live: boolean,
): Promise<VerificationOutcome> {
  const result = handle.result();
  let finished = false;
  void result.then(
    () => (finished = true),
    () => (finished = true),
  );
  let last = '';
  while (!finished && live) {
    const line = progressLine(await handle.progress());
    if (line !== last) {
      io.stdout.write(io.stdout.isTTY ? `\r\x1b[2K${line}` : `${line}\n`);
      last = line;
    }
    await Promise.race([result.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500))]);
  }
  if (live && io.stdout.isTTY) io.stdout.write('\n');
  return await result;
}
