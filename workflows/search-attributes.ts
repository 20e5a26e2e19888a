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

/** The `IdvStatus` of a maintenance workflow one of whose steps gave up (`idv list --failed` lists it). */
export const NEEDS_ATTENTION = 'needs-attention';
