import { z } from 'zod';
import { integrationCapabilities } from '../../common/identity-enums';
import { durationProblem, formatDuration, parseDuration } from '../../common/durations';
import { personalDataInReference } from './reference-privacy';
import { isSealed, type Sealed } from '../../codec/sealed';
import { verificationLimits } from './verification-limits';
import { isReportableWorkflowId, reservedPrefixOf, workflowKinds } from '../../common/workflow-ids';

// What workflow code reads of a verification lives in ./outcome, without zod: every workflow a
// worker creates or replays evaluates the modules it imports, and these schemas cost
// milliseconds and megabytes each time. The workflow's input is checked with them all the same,
// by a local activity (activities/input-checks.ts).
export {
  type AttachmentRef,
  FINAL_URL_MEMO,
  type NextStep,
  type SealedVerificationOutcome,
  type VerificationOutcome,
  type VerificationProgress,
  type VerificationStatus,
  verificationErrorCodes,
} from './outcome';

/** What the caller wants back: nothing, the identity data, or data and attachments. */
export const resultModes = ['none', 'data', 'data+attachments'] as const;
/** One of {@link resultModes}. */
export type ResultMode = (typeof resultModes)[number];

const absoluteUrl = z.string().refine(
  (value) => {
    try {
      new URL(value);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be an absolute URL' },
);

function toBoundedMs(
  bounds: { minMs: number; maxMs: number },
  value: number | string,
  context: z.RefinementCtx,
): number {
  const ms = parseDuration(value);
  if (ms === undefined) {
    context.addIssue({
      code: 'custom',
      message: durationProblem(value) ?? 'must be a duration such as 30m, 1h or 30 days',
    });
    return z.NEVER;
  }
  if (ms < bounds.minMs || ms > bounds.maxMs) {
    const bound =
      ms < bounds.minMs
        ? `at least ${formatDuration(bounds.minMs)}`
        : `at most ${formatDuration(bounds.maxMs)}`;
    context.addIssue({ code: 'custom', message: `must be ${bound}` });
    return z.NEVER;
  }
  return ms;
}

const durationValue = (what: string) =>
  z.union([z.number(), z.string()], { message: `must be a duration such as 30m, 1h or 30 days${what}` });

const duration = (bounds: { minMs: number; maxMs: number }) =>
  durationValue('').transform((value, context) => toBoundedMs(bounds, value, context));

/** A duration, or the word `never`. */
const httpUrl = z
  .string()
  .max(2_000, { message: 'must be at most 2000 characters' })
  .refine(
    (value) => {
      try {
        return ['http:', 'https:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http(s) URL' },
  );

const durationOrNever = (bounds: { minMs: number; maxMs: number }) =>
  durationValue(', or never').transform((value, context): number | 'never' =>
    value === 'never' ? 'never' : toBoundedMs(bounds, value, context),
  );

/**
 * A verification's reference as it may exist: its length and characters. Lookups and the workflow
 * take any such reference, since references made of platform ids (an onboarding's) may merely
 * look like a name with a date.
 */
export const referenceSchema = z
  .string()
  .min(1, { message: 'is required' })
  .max(200, { message: 'must be at most 200 characters' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, { message: 'may contain only letters, digits, . _ : and -' });

/**
 * The reference of a new verification, as a business types it: the workflow ID is
 * `idv-<reference>`, so it must carry no personal data (use an order or case number, not an email
 * address), and must not take the ID of another of the project's workflows.
 */
export const newReferenceSchema = referenceSchema
  .superRefine((value, context) => {
    const problem = personalDataInReference(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  })
  .refine((value) => reservedPrefixOf(value) === undefined, {
    message: `must not start with ${Object.values(workflowKinds).join(', ')}`,
  });

/**
 * A provider id, as the service issues them (`yoti`): every verification's summary names it, and
 * that summary is a search attribute, readable without the payload keys and bounded in size.
 */
const providerIdSchema = z
  .string()
  .min(1, { message: 'is required' })
  .max(100, { message: 'must be at most 100 characters' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, { message: 'may contain only letters, digits, . _ : and -' });

/** An optional whole number of milliseconds within `minMs` and `maxMs` (the polling bounds). */
function wholeMs(minMs: number, maxMs: number) {
  return z.number().int().min(minMs).max(maxMs).optional();
}

/** What a business service passes to start a verification (validated in the client). */
export const verificationRequestSchema = z.strictObject({
  reference: newReferenceSchema,
  verificationProfileId: z.guid({ message: 'must be a uuid' }),
  provider: providerIdSchema,
  capabilities: z.array(z.enum(integrationCapabilities)).min(1, { message: 'needs at least one capability' }),
  fallbackToHostedUI: z.boolean().optional(),
  redirectUrl: absoluteUrl.optional(),
  /**
   * Where the receiver's `/return/<reference>` sends the user's browser once it has told the
   * verification the user is back (point `redirectUrl` at the receiver to use it).
   */
  finalUrl: httpUrl.optional(),
  browserLanguages: z
    .array(
      z.string().max(verificationLimits.languageTagLength, {
        message: `must be language tags of at most ${verificationLimits.languageTagLength} characters`,
      }),
    )
    .max(verificationLimits.browserLanguages, {
      message: `must have at most ${verificationLimits.browserLanguages} languages`,
    })
    .optional(),
  providerInput: z
    .record(z.string(), z.unknown())
    .refine(
      (input) =>
        new TextEncoder().encode(JSON.stringify(input)).length <= verificationLimits.providerInputBytes,
      {
        message: 'must be at most 1 MiB as JSON (it travels in Temporal payloads of at most 2 MB)',
      },
    )
    .optional(),
  /** Auto-cancel when the user has not finished by then. @default '1 hour' */
  timeout: duration(verificationLimits.timeout).default(3_600_000),
  /** @default 'data' */
  results: z.enum(resultModes).default('data'),
  /** How long after the outcome the person's data is redacted, or `never`. @default 0 (right after delivery) */
  redactAfter: durationOrNever(verificationLimits.redactAfter).default(0),
  /**
   * Advanced: polling bounds (the interval starts at `initialMs` and grows to `maxMs`; @default
   * 1 s to 10 s) and `attemptMs`, how long a worker holds one poll attempt between its polls
   * (over it the attempt goes back to the server; a worker that crashed leaves its polls to the
   * server for that long; 1 minute makes one poll per attempt). @default 10 minutes
   */
  polling: z
    .strictObject({
      initialMs: wholeMs(verificationLimits.pollingMs.minMs, verificationLimits.pollingInitialMaxMs),
      maxMs: wholeMs(verificationLimits.pollingMs.minMs, verificationLimits.pollingMs.maxMs),
      attemptMs: wholeMs(verificationLimits.pollAttemptMs.minMs, verificationLimits.pollAttemptMs.maxMs),
    })
    .optional(),
});

/** A verification request as callers write it. */
export type VerificationRequest = z.input<typeof verificationRequestSchema>;

/** A validated request, defaults resolved, durations in ms; the person's input still readable. */
export type ParsedVerificationRequest = z.output<typeof verificationRequestSchema>;

const milliseconds = (bounds: { minMs: number; maxMs: number }) =>
  z
    .number({ message: 'must be a number of milliseconds' })
    .min(bounds.minMs, { message: `must be at least ${formatDuration(bounds.minMs)}` })
    .max(bounds.maxMs, { message: `must be at most ${formatDuration(bounds.maxMs)}` });

/**
 * The workflow's input (plain JSON): the parsed request, durations in ms, with the person's
 * `providerInput` and `browserLanguages` sealed under the verification's data key `dataKeyId` (created by the client
 * before the start). The client parses the request, the workflow its input, with the same rules
 * (unknown fields are refused from callers and dropped by the workflow).
 */
export const verificationInputSchema = verificationRequestSchema
  .extend({
    reference: referenceSchema,
    timeout: milliseconds(verificationLimits.timeout),
    results: z.enum(resultModes),
    redactAfter: z.union([z.literal('never'), milliseconds(verificationLimits.redactAfter)]),
    providerInput: z
      .custom<Sealed>(isSealed, { message: 'must be sealed under the data key (IdvClient seals it)' })
      .optional(),
    /** Sealed like `providerInput`; plain from clients of release 1.0.0. */
    browserLanguages: z
      .union([z.custom<Sealed>(isSealed), verificationRequestSchema.shape.browserLanguages.unwrap()])
      .optional(),
    dataKeyId: z
      .string({
        message: 'is required (start verifications with IdvClient, which creates the data key)',
      })
      .min(1, { message: 'is required (start verifications with IdvClient, which creates the data key)' }),
    /**
     * A workflow told the verification's ending (signal `verificationEnded`, no personal data)
     * once its clean-up ran: an orchestration that waits for it without holding it as a child.
     */
    reportTo: z.string().refine(isReportableWorkflowId, { message: 'must be a workflow ID' }).optional(),
  })
  // Read, not accepted: a client one release ahead of the workers may send a field more.
  .strip()
  // Sealed under another key, it would stay readable after this verification's redaction.
  .refine((input) => !isSealed(input.providerInput) || input.providerInput.keyId === input.dataKeyId, {
    message: "must be sealed under the verification's data key",
    path: ['providerInput'],
  })
  .refine((input) => !isSealed(input.browserLanguages) || input.browserLanguages.keyId === input.dataKeyId, {
    message: "must be sealed under the verification's data key",
    path: ['browserLanguages'],
  });

/** The workflow's input; see {@link verificationInputSchema}. */
export type VerificationInput = z.infer<typeof verificationInputSchema>;

/** Every rule the workflow's input breaks, in words; empty when it holds. */
export function verificationInputProblems(input: unknown): string[] {
  const parsed = verificationInputSchema.safeParse(input);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'} ${issue.message}`);
}

/** The record a start makes for its verification, before anything runs (the store's `reserveReference`). */
export function recordOfStart(input: VerificationInput, startedAt: Date = new Date()) {
  return {
    reference: input.reference,
    verificationProfileId: input.verificationProfileId,
    provider: input.provider,
    dataKeyId: input.dataKeyId,
    status: 'started' as const,
    startedAt: startedAt.toISOString(),
  };
}
