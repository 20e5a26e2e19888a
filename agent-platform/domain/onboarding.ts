import { z } from 'zod';
import { agentMessageTypes, connectionIdSchema } from './agent-deliveries';
import { tenantSchema } from './tenant-schema';
import {
  type CarriedOnboarding,
  type OnboardingEventCounts,
  onboardingLimits,
  onboardingReference,
} from './onboarding-rules';

export { type CarriedOnboarding, type OnboardingEventCounts, onboardingLimits, onboardingReference };
import { formatDuration, MAX_DATE_MS } from '../../common/durations';
import {
  type ParsedVerificationRequest,
  resultModes,
  verificationRequestSchema,
  referenceSchema,
} from '../../verification/domain/verification';

/**
 * The verification an onboarding runs: a verification request without `reference` (the
 * onboarding's own) and without `providerInput` (one setting serves every connection, and a
 * person's input belongs in neither settings nor history). `results` defaults to `none`: the
 * onboarding reports an outcome, never data.
 */
export const onboardingVerificationSchema = verificationRequestSchema
  .omit({ reference: true, providerInput: true })
  .extend({ results: z.enum(resultModes).default('none') });

/** The verification an onboarding runs, as callers write it. */
export type OnboardingVerification = z.input<typeof onboardingVerificationSchema>;

/** The message types an onboarding waits for: at least one, each once. */
export const waitForSchema = z
  .array(z.enum(agentMessageTypes, { message: `must be one of ${agentMessageTypes.join(', ')}` }))
  .min(1, { message: 'needs at least one message type' })
  .refine((types) => new Set(types).size === types.length, { message: 'must not repeat a type' });

const count = z.number().int().min(0);
/** What a run carries into the next (set by the workflow itself; checked all the same). */
const carriedSchema: z.ZodType<CarriedOnboarding, CarriedOnboarding> = z.strictObject({
  startedAt: count,
  deadline: count.max(MAX_DATE_MS),
  events: z.strictObject({
    total: count,
    duplicates: count,
    ignored: count,
    byType: z.partialRecord(z.enum(agentMessageTypes), count),
  }),
  keys: z.array(z.string().max(500)).max(2_000),
  verifying: z
    .strictObject({ waitedMs: count.max(MAX_DATE_MS), waitUntil: count.max(MAX_DATE_MS) })
    .optional(),
});

const bounded = (bounds: { min: number; max: number }, unit: (n: number) => string) =>
  z
    .number()
    .int({ message: 'must be a whole number' })
    .min(bounds.min, { message: `must be at least ${unit(bounds.min)}` })
    .max(bounds.max, { message: `must be at most ${unit(bounds.max)}` });

/** The fields of the `onboarding` workflow's input. */
const onboardingInputShape = z.strictObject({
  tenant: tenantSchema,
  connectionId: connectionIdSchema,
  /** Each of these must have come at least once before it verifies. @default ['new_connection'] */
  waitFor: waitForSchema.optional(),
  /** How long it waits for them (1 minute to 90 days), then ends timed out. @default 7 days */
  timeoutMs: bounded(
    { min: onboardingLimits.timeout.minMs, max: onboardingLimits.timeout.maxMs },
    formatDuration,
  ).optional(),
  /** It continues as new past this many history events while it waits (20 to 20,000). @default 2000 */
  maxHistoryEvents: bounded(onboardingLimits.maxHistoryEvents, String).optional(),
  verification: onboardingVerificationSchema,
  /** Set by the workflow itself when it continues as new. */
  carried: carriedSchema.optional(),
});

/** The reference an onboarding's verification takes must be valid. */
const referenceRefinement = (input: { tenant: string; connectionId: string }, context: z.RefinementCtx) => {
  // A connection id can be long enough for the reference to pass its 200 characters.
  const reference = referenceSchema.safeParse(onboardingReference(input.tenant, input.connectionId));
  if (!reference.success)
    context.addIssue({
      code: 'custom',
      path: ['connectionId'],
      message: `makes an invalid verification reference: ${reference.error.issues[0]?.message ?? 'invalid'}`,
    });
};

/** The input of the `onboarding` workflow. */
export const onboardingInputSchema = onboardingInputShape.superRefine(referenceRefinement);

/**
 * The input of a run an onboarding continued into: checked as a first run's but for the rules of
 * its verification, which a later build may have tightened since the first run checked them
 * (its prepare checks them again before it verifies).
 */
const carriedOnboardingInputSchema = onboardingInputShape
  .extend({ verification: z.record(z.string(), z.unknown()), carried: carriedSchema })
  .superRefine(referenceRefinement);

/** The input of the `onboarding` workflow, as callers write it. */
export type OnboardingInput = z.input<typeof onboardingInputSchema>;

/** Every problem of an onboarding's input, one line each (`field message`); empty when valid. Pure. */
export function onboardingInputProblems(input: unknown): string[] {
  return problemsOf(onboardingInputSchema.safeParse(input, { error: requiredMessage }));
}

/** As {@link onboardingInputProblems}, for a run continued from another (see `carriedOnboardingInputSchema`). */
export function carriedOnboardingInputProblems(input: unknown): string[] {
  return problemsOf(carriedOnboardingInputSchema.safeParse(input, { error: requiredMessage }));
}

/** Thrown when an onboarding's verification request is invalid; `problems` name each field. */
export class InvalidOnboardingInputError extends Error {
  override readonly name = 'InvalidOnboardingInputError';
  constructor(readonly problems: string[]) {
    super(`invalid onboarding input: ${problems.join('; ')}`);
  }
}

/**
 * The verification request of a connection's onboarding: validated, defaults resolved, durations
 * in ms, its reference the onboarding's. Throws {@link InvalidOnboardingInputError}.
 */
export function onboardingVerificationRequest(
  tenant: string,
  connectionId: string,
  verification: OnboardingVerification,
): Omit<ParsedVerificationRequest, 'providerInput'> {
  const parsed = onboardingVerificationSchema.safeParse(verification, { error: requiredMessage });
  const reference = referenceSchema.safeParse(onboardingReference(tenant, connectionId));
  const problems = [
    ...problemsOf(parsed, 'verification'),
    ...(reference.success ? [] : [`reference ${reference.error.issues[0]?.message ?? 'is invalid'}`]),
  ];
  if (!parsed.success || !reference.success) throw new InvalidOnboardingInputError(problems);
  return { ...parsed.data, reference: reference.data };
}

/** Absent fields read "is required" instead of zod's type message. */
function requiredMessage(issue: { input?: unknown }): string | undefined {
  return issue.input === undefined ? 'is required' : undefined;
}

function problemsOf(result: z.ZodSafeParseResult<unknown>, prefix?: string): string[] {
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    const field = [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || 'input';
    const message =
      issue.code === 'unrecognized_keys' ? `has unknown fields: ${issue.keys.join(', ')}` : issue.message;
    return `${field} ${message}`;
  });
}
