import { type Command, UsageError } from '../command';
import { printJson, progressLine } from '../output';
import { stringOption } from '../parse-values';
import { withVerification } from './follow-commands';
import { referenceArg } from './reference-arg';

/** `idv redirect-captured <reference>`: the user came back from a redirect flow; check now. */
export const redirectCapturedCommand: Command = {
  name: 'redirect-captured',
  takesArguments: true,
  summary: 'Tell a verification its user came back from the redirect flow (it checks the session at once)',
  usage: 'redirect-captured <reference>',
  options: {},
  async run(args, io) {
    const reference = referenceArg(args, 'redirect-captured');
    return await withVerification(io, reference, async ({ idv }) => {
      await idv.getVerification(reference).redirectCaptured();
      io.stdout.write(args.values.json === true ? '{"signalled":true}\n' : `${reference}: checking now\n`);
      return 0;
    });
  },
};

/** `idv refresh-step <reference>`: new step content (a fresh QR code or link). */
export const refreshStepCommand: Command = {
  name: 'refresh-step',
  takesArguments: true,
  summary: 'Refresh the step to hand to the user (new content for a refreshable step)',
  usage: 'refresh-step <reference> [--json]',
  options: {},
  async run(args, io) {
    const reference = referenceArg(args, 'refresh-step');
    return await withVerification(io, reference, async ({ idv }) => {
      const step = await idv.getVerification(reference).refreshStep();
      if (args.values.json === true) printJson(io, step);
      else io.stdout.write(`next step: ${step.method} ${step.content}`.trimEnd() + '\n');
      return 0;
    });
  },
};

/** `idv submit-challenge <reference> --token T`: the native challenge's response. */
export const submitChallengeCommand: Command = {
  name: 'submit-challenge',
  takesArguments: true,
  summary: 'Submit the response token of a native-challenge verification',
  usage: 'submit-challenge <reference> --token T [--json]',
  options: {
    token: { type: 'string', valueName: 'T', description: 'the response token the user’s app produced' },
  },
  async run(args, io) {
    const reference = referenceArg(args, 'submit-challenge');
    const token = stringOption(args.values, 'token');
    if (!token) throw new UsageError('idv submit-challenge needs --token T');
    return await withVerification(io, reference, async ({ idv }) => {
      const progress = await idv.getVerification(reference).submitNativeChallenge(token);
      if (args.values.json === true) printJson(io, progress);
      else io.stdout.write(`${progressLine(progress)}\n`);
      return 0;
    });
  },
};
