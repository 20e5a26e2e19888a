import { tenantProblem } from '../agent-tenants';
import { type MigrationTarget } from './migration-plan';
import { POLICY_PLACEHOLDER } from './redirect-uris';
import { templateTypes } from './schema-template';
import { kindWorkflowId } from '../../../common/workflow-ids';

/** What a migration is started with. */
export interface PlatformMigrationInput {
  tenant: string;
  /** False (the default): a dry run that reads both platforms and changes nothing. */
  apply?: boolean;
  target: MigrationTarget;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An address holders' browsers and wallets are sent to: absolute https (http only on this
 * machine), no credentials, no fragment (RFC 6749 §3.1.2), no `*` (a wildcard belongs in what
 * is registered, never in a request: registering it would widen where the provider redirects).
 */
function urlProblem(name: string, value: unknown): string | undefined {
  const wrong = `${name} must be an absolute https URL (http only for localhost)`;
  if (typeof value !== 'string' || value.length > 2_000) return wrong;
  let url: URL;
  try {
    url = new URL(value.split(POLICY_PLACEHOLDER).join('policy'));
  } catch {
    return wrong;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return wrong;
  if (url.username || url.password) return `${name} must not carry credentials`;
  if (value.includes('#')) return `${name} must not have a fragment (#)`;
  if (value.includes('*'))
    return `${name} must not contain * (register a wildcard with idv redirect-uris add)`;
  return undefined;
}

function nameProblem(name: string, value: unknown): string | undefined {
  return typeof value === 'string' && /^[^\s]{1,200}$/.test(value)
    ? undefined
    : `${name} must be 1 to 200 characters without spaces`;
}

/** What is wrong with a migration's input, one line each (empty when valid). */
export function migrationInputProblems(input: PlatformMigrationInput): string[] {
  if (typeof input !== 'object' || input === null) return ['the input must be {tenant, apply?, target}'];
  const problems: string[] = [];
  const tenant = tenantProblem(input.tenant);
  if (tenant) problems.push(tenant);
  if (input.apply !== undefined && typeof input.apply !== 'boolean')
    problems.push('apply must be true or false');
  const target = input.target as Partial<MigrationTarget> | undefined;
  if (typeof target !== 'object' || target === null) return [...problems, 'target is required'];
  problems.push(
    ...[
      urlProblem('authUrl', target.authUrl),
      urlProblem('schemaBaseUrl', target.schemaBaseUrl),
      urlProblem('redirectUri', target.redirectUri),
      nameProblem('clientId', target.clientId),
      nameProblem('ecosystem', target.ecosystem),
    ].filter((problem): problem is string => problem !== undefined),
  );
  if (target.mapping !== undefined) {
    const mapping: unknown = target.mapping;
    if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping))
      problems.push('mapping must be an object of attribute name → type');
    else {
      const entries = Object.entries(mapping);
      const wrong = entries.filter(([, type]) => !(templateTypes as readonly unknown[]).includes(type));
      if (entries.length > 10_000) problems.push('mapping has more than 10000 attributes');
      else if (wrong.length > 0)
        problems.push(
          `mapping: ${wrong
            .slice(0, 3)
            .map(([name]) => name)
            .join(', ')} must be one of ${templateTypes.join(', ')}`,
        );
    }
  }
  return problems;
}

/** The migration workflow's ID of a tenant. */
export function migrationWorkflowId(tenant: string): string {
  return kindWorkflowId('migration', tenant);
}
