import { WorkflowNotFoundError } from '@temporalio/client';
import { NoSessionError, VerificationNotFoundError } from '../../verification/client/idv-client';
import { VerificationEndedError } from '../../verification/client/verification-handle';
import { type Command, CommandFailedError } from '../command';
import { connectTemporal } from '../connect';
import { followProgress } from '../follow';
import { outcomeLines, printJson, progressLine } from '../output';
import { stringOption } from '../parse-values';
import { referenceArg } from './reference-arg';

/** Runs `body` with a connection; a missing or ended verification is one line. */
export async function withVerification<T>(
  io: Parameters<Command['run']>[1],
  reference: string,
  body: (connected: Awaited<ReturnType<typeof connectTemporal>>) => Promise<T>,
): Promise<T> {
  const connected = await connectTemporal(io.env);
  try {
    return await body(connected);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError || error instanceof VerificationNotFoundError)
      throw new CommandFailedError(`no verification with reference '${reference}'`);
    if (error instanceof VerificationEndedError || error instanceof NoSessionError)
      throw new CommandFailedError(error.message);
    throw error;
  } finally {
    await connected.close();
  }
}

/** `idv status <reference>`. */
export const statusCommand: Command = {
  name: 'status',
  takesArguments: true,
  summary: 'Show the progress of a verification',
  usage: 'status <reference> [--json]',
  options: {},
  async run(args, io) {
    const reference = referenceArg(args, 'status');
    return await withVerification(io, reference, async ({ idv }) => {
      const progress = await idv.getVerification(reference).progress();
      if (args.values.json === true) printJson(io, progress);
      else io.stdout.write(`${progressLine(progress)}\n`);
      return 0;
    });
  },
};

/** `idv watch <reference>`. */
export const watchCommand: Command = {
  name: 'watch',
  takesArguments: true,
  summary: 'Follow a verification until its outcome (exit 0 only if it succeeded)',
  usage: 'watch <reference> [--json]',
  options: {},
  async run(args, io) {
    const reference = referenceArg(args, 'watch');
    return await withVerification(io, reference, async ({ idv }) => {
      const handle = idv.getVerification(reference);
      await handle.progress();
      const outcome = await followProgress(handle, io, args.values.json !== true);
      if (args.values.json === true) printJson(io, outcome);
      else io.stdout.write(`${outcomeLines(outcome).join('\n')}\n`);
      return outcome.status === 'succeeded' ? 0 : 1;
    });
  },
};

/** `idv cancel <reference>`. */
export const cancelCommand: Command = {
  name: 'cancel',
  takesArguments: true,
  summary: 'Cancel a running verification and its session at the service',
  usage: 'cancel <reference> [--reason TEXT] [--json]',
  options: {
    reason: {
      type: 'string',
      valueName: 'TEXT',
      description:
        "why (kept in the workflow history sealed under the verification's data key: readable to no one once redacted)",
    },
  },
  async run(args, io) {
    const reference = referenceArg(args, 'cancel');
    return await withVerification(io, reference, async ({ idv }) => {
      const progress = await idv.getVerification(reference).cancel(stringOption(args.values, 'reason'));
      if (args.values.json === true) printJson(io, progress);
      else io.stdout.write(`${progressLine(progress)}\n`);
      return 0;
    });
  },
};

/** `idv redact <reference>`: redacts now (a running verification is cancelled first). */
export const redactCommand: Command = {
  name: 'redact',
  takesArguments: true,
  summary: 'Redact the person’s data of a verification now (a running one is cancelled first)',
  usage: 'redact <reference> [--json]',
  options: {},
  async run(args, io) {
    const reference = referenceArg(args, 'redact');
    return await withVerification(io, reference, async ({ idv }) => {
      const report = await idv.redactVerification(reference);
      if (args.values.json === true) printJson(io, { reference, ...report });
      else
        io.stdout.write(
          `redacted session ${report.sessionId} at ${report.redactedAt} (${report.attachmentsDeleted} attachments deleted, data key ${report.dataKeyDestroyed ? 'destroyed' : 'already gone'})\n`,
        );
      return 0;
    });
  },
};
