import { z } from 'zod';
import { kindWorkflowId, ONBOARDING_VERIFICATION_PREFIX, workflowKinds } from '../../common/workflow-ids';

/**
 * A tenant of the earlier agent platform as this project names it: it appears in workflow IDs
 * (`idv-agent-webhooks-<tenant>`) and in the receiver's path, so it is short and URL-safe.
 */
export const tenantSchema = z
  .string()
  .min(1, { message: 'is required' })
  .max(100, { message: 'must be at most 100 characters' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { message: 'may contain only letters, digits, . _ and -' })
  // Its onboardings' IDs (`idv-onboarding-verification:…`) would be those of onboardings' verifications.
  .refine((tenant) => `${workflowKinds.onboarding}${tenant}:` !== ONBOARDING_VERIFICATION_PREFIX, {
    message: 'is reserved: choose another name',
  });

/** The problem with a tenant name, or undefined when it is valid. */
export function tenantProblem(tenant: unknown): string | undefined {
  const parsed = tenantSchema.safeParse(tenant);
  return parsed.success ? undefined : `tenant ${parsed.error.issues[0]?.message ?? 'is invalid'}`;
}

/** The webhook registry of a tenant. */
export function agentWebhooksWorkflowId(tenant: string): string {
  return kindWorkflowId('webhookRegistry', tenant);
}

/**
 * Two tenants whose connection workflow IDs could be the same (`idv-connection-<tenant>-<id>`:
 * `acme` with connection `x-1` and `acme-x` with connection `1`), or undefined. Such tenants
 * cannot be configured together.
 */
export function ambiguousTenants(tenants: readonly string[]): [string, string] | undefined {
  for (const one of tenants)
    for (const other of tenants) if (other.startsWith(`${one}-`)) return [one, other];
  return undefined;
}
