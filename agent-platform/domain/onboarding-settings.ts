import { z } from 'zod';
import { ambiguousTenants } from './agent-tenants';
import { tenantSchema } from './tenant-schema';
import { durationProblem, formatDuration, parseDuration } from '../../common/durations';
import {
  type OnboardingInput,
  onboardingLimits,
  onboardingVerificationSchema,
  waitForSchema,
} from './onboarding';

/**
 * Which tenants' connections the receiver onboards, and how (`idv receiver --onboarding FILE`,
 * `IDV_ONBOARDING_FILE`): `{tenants: ['acme'] | '*', waitFor?, timeout?: '7d', verification}`.
 */
export const onboardingSettingsSchema = z.strictObject({
  /** The tenants whose connections are onboarded, or `*` for every tenant. */
  tenants: z.union([
    z.literal('*'),
    z
      .array(tenantSchema)
      .min(1, { message: 'needs at least one tenant (or "*")' })
      .superRefine((tenants, context) => {
        const pair = ambiguousTenants(tenants);
        if (pair)
          context.addIssue({
            code: 'custom',
            message: `has ${pair[0]} and ${pair[1]}: one must not be the other followed by '-' (their onboarding IDs could meet)`,
          });
      }),
  ]),
  /** @default ['new_connection'] */
  waitFor: waitForSchema.optional(),
  /** How long to wait for the events, e.g. `7d`, `36h` (1 minute to 90 days). @default 7 days */
  timeout: z
    .union([z.number(), z.string()])
    .transform((value, context) => {
      const problem = durationProblem(value);
      if (problem) {
        context.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      const ms = parseDuration(value);
      const { minMs, maxMs } = onboardingLimits.timeout;
      if (ms === undefined || !Number.isInteger(ms) || ms < minMs || ms > maxMs) {
        context.addIssue({
          code: 'custom',
          message: `must be a duration from ${formatDuration(minMs)} to ${formatDuration(maxMs)}, such as 7d or 36h`,
        });
        return z.NEVER;
      }
      return ms;
    })
    .optional(),
  verification: onboardingVerificationSchema,
});

/** Onboarding settings, validated (durations in ms, defaults resolved). */
export type OnboardingSettings = z.output<typeof onboardingSettingsSchema>;

/** Thrown when onboarding settings are invalid; the message names each field. */
export class OnboardingSettingsError extends Error {
  override readonly name = 'OnboardingSettingsError';
  constructor(
    message: string,
    /** Each invalid field, `field message`. */
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

/** Validates onboarding settings (parsed JSON); throws {@link OnboardingSettingsError}. */
export function parseOnboardingSettings(value: unknown): OnboardingSettings {
  const parsed = onboardingSettingsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.join('.') || '(settings)';
    const message =
      issue.code === 'unrecognized_keys' ? `has unknown fields: ${issue.keys.join(', ')}` : issue.message;
    return `${field} ${message}`;
  });
  throw new OnboardingSettingsError(`invalid onboarding settings: ${problems.join('; ')}`, problems);
}

/** The onboarding input of a connection, or undefined when its tenant is not onboarded. */
export function onboardingInputFor(
  settings: OnboardingSettings,
  tenant: string,
  connectionId: string,
): OnboardingInput | undefined {
  if (settings.tenants !== '*' && !settings.tenants.includes(tenant)) return undefined;
  return {
    tenant,
    connectionId,
    ...(settings.waitFor ? { waitFor: settings.waitFor } : {}),
    ...(settings.timeout !== undefined ? { timeoutMs: settings.timeout } : {}),
    verification: settings.verification,
  };
}
