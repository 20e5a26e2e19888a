import { kindWorkflowId, ONBOARDING_VERIFICATION_PREFIX, workflowKinds } from '../../common/workflow-ids';

const TENANT_CHARACTERS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * What is wrong with a tenant name of the earlier agent platform as this project names it, or
 * undefined: it appears in workflow IDs (`idv-agent-webhooks-<tenant>`) and in the receiver's
 * path, so it is short and URL-safe. Plain code, no zod: workflow code checks tenants too
 * (`tenantSchema` in ./tenant-schema wraps this for the parsers).
 */
export function tenantNameProblem(tenant: unknown): string | undefined {
  if (typeof tenant !== 'string') return 'must be a string';
  if (tenant.length === 0) return 'is required';
  if (tenant.length > 100) return 'must be at most 100 characters';
  if (!TENANT_CHARACTERS.test(tenant)) return 'may contain only letters, digits, . _ and -';
  // Its onboardings' IDs (`idv-onboarding-verification:…`) would be those of onboardings' verifications.
  if (`${workflowKinds.onboarding}${tenant}:` === ONBOARDING_VERIFICATION_PREFIX)
    return 'is reserved: choose another name';
  return undefined;
}

/** The problem with a tenant name (`tenant …`), or undefined when it is valid. */
export function tenantProblem(tenant: unknown): string | undefined {
  const problem = tenantNameProblem(tenant);
  return problem === undefined ? undefined : `tenant ${problem}`;
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
