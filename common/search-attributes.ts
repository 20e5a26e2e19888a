import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Session id at the service (no personal data). */
export const IdvSessionId = defineSearchAttributeKey('IdvSessionId', SearchAttributeType.KEYWORD);
/** Verification profile. */
export const IdvProfileId = defineSearchAttributeKey('IdvProfileId', SearchAttributeType.KEYWORD);
/** Provider id. */
export const IdvProvider = defineSearchAttributeKey('IdvProvider', SearchAttributeType.KEYWORD);
/**
 * Verifications: their normalised status (starting, pending, succeeded, failed, cancelled,
 * timed-out). Maintenance workflows: {@link NEEDS_ATTENTION} while a step gave up.
 */
export const IdvStatus = defineSearchAttributeKey('IdvStatus', SearchAttributeType.KEYWORD);
/**
 * Every workflow's one-line summary, the same as its user metadata's: the web UI's workflows list
 * shows search attributes as columns, never user metadata. Text, since a reference alone may take
 * 200 characters (SQL visibility keeps a Keyword in 255).
 */
export const IdvSummary = defineSearchAttributeKey('IdvSummary', SearchAttributeType.TEXT);

/**
 * Every custom search attribute of the project, for registering them with a server. None carries
 * personal data: only service-issued identifiers, the provider id, the normalised status, and the
 * summaries made of these, the business reference and the tenant.
 */
export const idvSearchAttributes = [IdvSessionId, IdvProfileId, IdvProvider, IdvStatus, IdvSummary] as const;

/** The name a server's `--search-attribute NAME=TYPE` takes for one of them (`KEYWORD` → `Keyword`). */
export function searchAttributeTypeName(type: string): string {
  return type.charAt(0) + type.slice(1).toLowerCase();
}

/** The `IdvStatus` of a maintenance workflow one of whose steps gave up (`idv list --failed` lists it). */
export const NEEDS_ATTENTION = 'needs-attention';
