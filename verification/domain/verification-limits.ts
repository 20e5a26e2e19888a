import { formatDuration } from '../../common/durations';
import { isSealed } from '../../codec/sealed';

const SECOND = 1_000;
const DAY = 86_400_000;

/**
 * The bounds of a verification's durations, checked where requests enter (the client's schema)
 * and again by the workflow itself, so input that bypassed the client fails at once instead of
 * overflowing a timer or a date.
 */
export const verificationLimits = {
  /** Auto-cancel deadline: a verification never runs longer than 30 days. */
  timeout: { minMs: SECOND, maxMs: 30 * DAY },
  /** Delay of the redaction after the outcome (or `never`). */
  redactAfter: { minMs: 0, maxMs: 365 * DAY },
  /** Poll intervals. */
  pollingMs: { minMs: 100, maxMs: 300_000 },
  pollingInitialMaxMs: 60_000,
} as const;

/** What a workflow checks of its input (the validated request, durations in ms). */
export interface BoundedInput {
  reference: unknown;
  dataKeyId?: unknown;
  providerInput?: unknown;
  timeout: unknown;
  redactAfter: unknown;
  polling?: { initialMs?: unknown; maxMs?: unknown } | undefined;
  reportTo?: unknown;
}

function outside(name: string, value: unknown, bounds: { minMs: number; maxMs: number }): string[] {
  if (typeof value !== 'number' || !Number.isFinite(value))
    return [`${name} must be a number of milliseconds`];
  if (value < bounds.minMs) return [`${name} must be at least ${formatDuration(bounds.minMs)}`];
  if (value > bounds.maxMs) return [`${name} must be at most ${formatDuration(bounds.maxMs)}`];
  return [];
}

/**
 * Every bound the input breaks, in words; empty when it is within bounds. Pure. The input must
 * carry its data key and a sealed providerInput (the client makes both).
 */
export function verificationInputProblems(input: BoundedInput): string[] {
  const problems: string[] = [];
  if (typeof input.reference !== 'string' || input.reference.length === 0)
    problems.push('reference is required');
  if (typeof input.dataKeyId !== 'string' || input.dataKeyId.length === 0)
    problems.push('dataKeyId is required (start verifications with IdvClient, which creates the data key)');
  if (input.providerInput !== undefined && !isSealed(input.providerInput))
    problems.push('providerInput must be sealed under the data key (IdvClient seals it)');
  problems.push(...outside('timeout', input.timeout, verificationLimits.timeout));
  if (input.redactAfter !== 'never')
    problems.push(...outside('redactAfter', input.redactAfter, verificationLimits.redactAfter));
  for (const key of ['initialMs', 'maxMs'] as const) {
    const value = input.polling?.[key];
    if (value !== undefined) problems.push(...outside(`polling.${key}`, value, verificationLimits.pollingMs));
  }
  if (
    input.reportTo !== undefined &&
    (typeof input.reportTo !== 'string' || !/^\S{1,1000}$/.test(input.reportTo))
  )
    problems.push('reportTo must be a workflow ID');
  return problems;
}
