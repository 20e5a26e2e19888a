import { tenantProblem } from './agent-tenants';
import { driftPolicies, type DriftPolicy } from './webhook-registry';

const MINUTE = 60_000;

/** Bounds and defaults of a webhook registry's settings. */
export const webhookRegistryLimits = {
  /** How often it compares with the platform. @default 10 minutes */
  reconcileEvery: { minMs: 1_000, maxMs: 24 * 60 * MINUTE, defaultMs: 10 * MINUTE },
  /** It continues-as-new past this many history events. @default 2000 */
  maxHistoryEvents: { min: 20, max: 20_000, default: 2_000 },
} as const;

/** A registry's settings as a caller gives them. */
export interface WebhookRegistrySettings {
  /** @default 'repair' */
  driftPolicy?: DriftPolicy;
  /** @default 10 minutes */
  reconcileEveryMs?: number;
  /** @default 2000 */
  maxHistoryEvents?: number;
}

/** What is wrong with a registry's tenant or settings, one line each (empty when valid). */
export function webhookRegistryInputProblems(input: { tenant: unknown } & WebhookRegistrySettings): string[] {
  const problems: string[] = [];
  const tenant = tenantProblem(input.tenant);
  if (tenant) problems.push(tenant);
  if (input.driftPolicy !== undefined && !driftPolicies.includes(input.driftPolicy))
    problems.push(`driftPolicy must be one of ${driftPolicies.join(', ')}`);
  const every = webhookRegistryLimits.reconcileEvery;
  if (input.reconcileEveryMs !== undefined && !within(input.reconcileEveryMs, every.minMs, every.maxMs))
    problems.push(`reconcileEveryMs must be between ${every.minMs} and ${every.maxMs}`);
  const events = webhookRegistryLimits.maxHistoryEvents;
  if (input.maxHistoryEvents !== undefined && !within(input.maxHistoryEvents, events.min, events.max))
    problems.push(`maxHistoryEvents must be between ${events.min} and ${events.max}`);
  return problems;
}

function within(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
