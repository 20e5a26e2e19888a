import { type RequestContext } from '../http/context';
import { forbidden } from '../http/problems';

/** The environment of the identity key that made the request (the router has authenticated it). */
export function environmentOf(context: RequestContext): string {
  const principal = context.principal;
  if (principal?.kind !== 'identity') forbidden('This key does not grant access to the identity API.');
  return principal.environmentId;
}

/** The tenant of the earlier-platform key that made the request. */
export function tenantOf(context: RequestContext): string {
  const principal = context.principal;
  if (principal?.kind !== 'agent') forbidden('This key does not grant access to the agent platform.');
  return principal.tenant;
}
