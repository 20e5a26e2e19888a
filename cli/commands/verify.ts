import { randomBytes } from 'node:crypto';
import { integrationCapabilities, type IntegrationCapability } from '../../common/identity-enums';
import {
  resultModes,
  type ResultMode,
  type VerificationRequest,
  verificationRequestSchema,
} from '../../verification/domain/verification';
import { InvalidVerificationRequestError } from '../../verification/client/parse-request';
import { receiverReturnUrl } from '../../verification/client/receiver-return-url';
import { ReceiverSecretError } from '../../codec/receiver-tokens';
import { type StackInfo } from '../../workers/dev/stack-file';
import { receiverAddressOf } from '../../workers/receiver-address';
import { VerificationNotStartedError } from '../../verification/client/idv-client';
import { VerificationEndedError } from '../../verification/client/verification-handle';
import { type Command, type CommandArgs, CommandFailedError, UsageError } from '../command';
import { commandConfig, connectTemporal } from '../connect';
import { outcomeLines, printJson } from '../output';
import { durationOption, stringListOption, stringOption } from '../parse-values';
import { followProgress } from '../follow';
import { inputEntries, inputFile, inputFileOption } from './provider-input';

const TEST_PROVIDER = 'trinsic-test-database-lookup';
const TEST_INPUT = { givenName: 'Ada', familyName: 'Lovelace', identityCode: '123456' };

/**
 * The capabilities of `--capability`, each one the service knows. Required unless the provider is
 * the embedded stack's test provider (also the one used when `--provider` is not given), whose
 * default is `PollResult`.
 */
function capabilities(values: string[], provider: string | undefined): IntegrationCapability[] {
  for (const value of values) {
    if (!integrationCapabilities.includes(value as IntegrationCapability)) {
      throw new UsageError(`--capability '${value}' is not one of ${integrationCapabilities.join(', ')}`);
    }
  }
  if (values.length > 0) return values as IntegrationCapability[];
  if (provider === undefined || provider === TEST_PROVIDER) return ['PollResult'];
  throw new UsageError(
    '--capability is required for this provider (repeat it for each capability your UI supports)',
  );
}

/**
 * The receiver's return URL of `reference` (`--return-via-receiver`): the receiver of
 * `IDV_RECEIVER_URL` and `IDV_RECEIVER_SECRET`, else the stack's.
 */
async function returnUrlOf(
  reference: string,
  context: { env: NodeJS.ProcessEnv; stack: StackInfo | undefined },
): Promise<string> {
  const receiver = await receiverAddressOf(commandConfig(context.env), context.stack);
  if (!receiver)
    throw new CommandFailedError(
      '--return-via-receiver needs the receiver: set IDV_RECEIVER_URL and IDV_RECEIVER_SECRET, or start `idv dev`',
    );
  try {
    return receiverReturnUrl({ receiverUrl: receiver.url, receiverSecret: receiver.secret, reference });
  } catch (error) {
    if (error instanceof ReceiverSecretError) throw new CommandFailedError(error.message);
    throw error;
  }
}

/** The request's fields that options set, each with its option. */
const optionOfField = {
  reference: 'reference',
  redirectUrl: 'redirect-url',
  finalUrl: 'final-url',
  timeout: 'timeout',
  redactAfter: 'redact-after',
} as const;

type OptionField = keyof typeof optionOfField;

/** The request's own rules for the fields options set (bounds of durations, URLs, references). */
const optionFieldsSchema = verificationRequestSchema.pick(
  Object.fromEntries(Object.keys(optionOfField).map((field) => [field, true])) as Record<OptionField, true>,
);

/**
 * What the options set of the request, refused with a {@link UsageError} naming each option that
 * breaks the request's rules: everything the command line alone can check, before any stack is
 * looked up or connected to. Durations are repeated in the message; a reference is not (it could
 * hold personal data).
 */
function requestOptions(values: CommandArgs['values']): Pick<VerificationRequest, OptionField | 'results'> {
  const results = stringOption(values, 'results');
  if (results !== undefined && !resultModes.includes(results as ResultMode)) {
    throw new UsageError(`--results must be one of ${resultModes.join(', ')}, got '${results}'`);
  }
  const fields: Pick<VerificationRequest, OptionField> = {
    reference: stringOption(values, 'reference') ?? `cli-${Date.now()}-${randomBytes(3).toString('hex')}`,
    redirectUrl: stringOption(values, 'redirect-url'),
    finalUrl: stringOption(values, 'final-url'),
    timeout: durationOption(values, 'timeout'),
    // Attachments are printed as links to the store: keep them an hour unless told otherwise
    // (the default 0 would delete them as the outcome is printed).
    redactAfter:
      durationOption(values, 'redact-after', { never: true }) ??
      (results === 'data+attachments' ? '1h' : undefined),
  };
  const checked = optionFieldsSchema.safeParse(fields);
  if (!checked.success) {
    const problems = new Map<OptionField, string[]>();
    for (const issue of checked.error.issues) {
      const field = issue.path[0] as OptionField;
      problems.set(field, [...(problems.get(field) ?? []), issue.message]);
    }
    const lines = [...problems].map(([field, messages]) => {
      const echo = field === 'timeout' || field === 'redactAfter' ? `, got '${String(fields[field])}'` : '';
      return `--${optionOfField[field]} ${messages.join('; ')}${echo}`;
    });
    throw new UsageError(lines.join('; '));
  }
  return { ...fields, ...(results ? { results: results as ResultMode } : {}) };
}

/** `idv verify`: starts a verification and prints its next step; `--wait` follows it to the outcome. */
export const verifyCommand: Command = {
  name: 'verify',
  summary: 'Start a verification and print the step to hand to the user (--wait follows it to the outcome)',
  usage:
    'verify [--profile ID] [--provider P] [--capability C]... [--fallback] [--redirect-url U | --return-via-receiver] [--final-url U] [--input-file PATH|-] [--input key=value]... [--reference R] [--timeout 30m] [--redact-after 1h|never] [--results none|data|data+attachments] [--wait] [--json]',
  options: {
    profile: {
      type: 'string',
      valueName: 'ID',
      description: 'verification profile id (default: the embedded emulator’s profile)',
    },
    provider: {
      type: 'string',
      valueName: 'P',
      description: `provider id (default: ${TEST_PROVIDER} on the embedded stack)`,
    },
    capability: {
      type: 'string',
      multiple: true,
      valueName: 'C',
      description: `a capability of your UI: ${integrationCapabilities.join(', ')}`,
    },
    fallback: { type: 'boolean', description: 'fall back to the hosted UI for what your UI cannot do' },
    'redirect-url': {
      type: 'string',
      valueName: 'U',
      description: 'where the user returns after a redirect-based flow',
    },
    'return-via-receiver': {
      type: 'boolean',
      description:
        "the user returns through the receiver (IDV_RECEIVER_URL and IDV_RECEIVER_SECRET, else the stack's): the redirect URL is its /return/<reference>/<token>, printed",
    },
    'final-url': {
      type: 'string',
      valueName: 'U',
      description: "where the receiver's return sends the browser next",
    },
    'input-file': inputFileOption,
    input: {
      type: 'string',
      multiple: true,
      valueName: 'key=value',
      description:
        "provider input field (e.g. identityCode=123456), overriding --input-file's; visible to the machine's other users (ps) and kept in shell history: prefer --input-file for a person's data",
    },
    reference: {
      type: 'string',
      valueName: 'R',
      description: 'your business reference, no personal data (default: generated); workflow ID idv-R',
    },
    timeout: {
      type: 'string',
      valueName: 'DURATION',
      description: 'auto-cancel when not done by then (default 1h)',
    },
    'redact-after': {
      type: 'string',
      valueName: 'DURATION|never',
      description:
        'redact this long after the outcome (default 0: right after; with --results data+attachments, 1h)',
    },
    results: {
      type: 'string',
      valueName: 'MODE',
      description: `what to fetch: ${resultModes.join(', ')} (default data)`,
    },
    wait: {
      type: 'boolean',
      description: 'follow the verification to its outcome; exit 0 only if it succeeded',
    },
  },
  async run({ values }, io) {
    const options = requestOptions(values);
    const entries = inputEntries(stringListOption(values, 'input'));
    const viaReceiver = values['return-via-receiver'] === true;
    if (viaReceiver && options.redirectUrl !== undefined)
      throw new UsageError('give --redirect-url or --return-via-receiver, not both');
    const givenProvider = stringOption(values, 'provider');
    const capabilityValues = capabilities(stringListOption(values, 'capability'), givenProvider);
    // Read once the command line holds no other mistake (standard input is read only once).
    const inputPath = stringOption(values, 'input-file');
    const fileInput = inputPath === undefined ? undefined : await inputFile(inputPath, io);
    const givenInput = fileInput || entries ? { ...fileInput, ...entries } : undefined;
    const connected = await connectTemporal(io.env);
    try {
      const profile = stringOption(values, 'profile') ?? connected.stack?.emulator?.verificationProfileId;
      if (!profile) throw new UsageError('--profile is required outside the embedded stack');
      const provider = givenProvider ?? (connected.stack?.emulator ? TEST_PROVIDER : undefined);
      if (!provider) throw new UsageError('--provider is required outside the embedded stack');
      // The test provider's default input, with what --input-file and --input change (the help's own example).
      const input = provider === TEST_PROVIDER ? { ...TEST_INPUT, ...givenInput } : givenInput;
      const returnUrl = viaReceiver
        ? await returnUrlOf(options.reference, { env: io.env, stack: connected.stack })
        : undefined;
      const request: VerificationRequest = {
        ...options,
        ...(returnUrl ? { redirectUrl: returnUrl } : {}),
        verificationProfileId: profile,
        provider,
        capabilities: capabilityValues,
        ...(values.fallback === true ? { fallbackToHostedUI: true } : {}),
        ...(input ? { providerInput: { [provider]: input } } : {}),
      };
      let started;
      try {
        started = await connected.idv.startVerification(request);
      } catch (error) {
        if (error instanceof InvalidVerificationRequestError) throw new UsageError(error.message);
        if (error instanceof VerificationNotStartedError) throw new CommandFailedError(error.message);
        if (error instanceof VerificationEndedError)
          throw new CommandFailedError(
            `verification ${request.reference} has already ended: see \`idv status ${request.reference}\`, or start another --reference`,
          );
        throw error;
      }
      const { handle, nextStep } = started;
      const summary = {
        reference: handle.reference,
        workflowId: handle.workflowId,
        sessionId: nextStep.sessionId,
        nextStep: nextStep.nextStep,
        ...(returnUrl ? { returnUrl } : {}),
      };
      const stepLine = [
        `next step: ${nextStep.nextStep.method} ${nextStep.nextStep.content}`.trimEnd(),
        ...(returnUrl ? [`return: ${returnUrl}`] : []),
      ].join('\n');
      if (values.wait !== true) {
        if (values.json === true) printJson(io, summary);
        else
          io.stdout.write(
            `reference: ${summary.reference}\nworkflow: ${summary.workflowId}\nsession: ${summary.sessionId}\n${stepLine}\n`,
          );
        return 0;
      }
      if (values.json !== true) io.stdout.write(`reference: ${summary.reference}\n${stepLine}\n`);
      const outcome = await followProgress(handle, io, values.json !== true);
      if (values.json === true) printJson(io, { ...summary, outcome });
      else io.stdout.write(`${outcomeLines(outcome).join('\n')}\n`);
      return outcome.status === 'succeeded' ? 0 : 1;
    } finally {
      await connected.close();
    }
  },
};
