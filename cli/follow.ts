import { type VerificationOutcome } from '../verification/domain/verification';
import { type VerificationHandle } from '../verification/client/verification-handle';
import { type CommandIo } from './command';
import { progressLine } from './output';

/**
 * Follows a verification to its outcome. On a terminal the progress line is redrawn in place;
 * otherwise (and with `live` false) only changes are printed, one per line. The results count as
 * delivered once printed, unless they include attachments (links to read within the hour).
 */
export async function followProgress(
  handle: VerificationHandle,
  io: CommandIo,
  live: boolean,
): Promise<VerificationOutcome> {
  const result = handle.result({ confirmDelivery: false });
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
  const outcome = await result;
  // Printed now: delivered. Attachments are links, kept until the redaction's grace ends.
  if (outcome.sessionId && !outcome.attachments?.length) await handle.confirmDelivery(outcome.sessionId);
  return outcome;
}
