import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Session id at the service (no personal data). */
export const IdvSessionId = defineSearchAttributeKey('IdvSessionId', SearchAttributeType.KEYWORD);
/** Verification profile. */
export const IdvProfileId = defineSearchAttributeKey('IdvProfileId', SearchAttributeType.KEYWORD);
/** Provider id. */
export const IdvProvider = defineSearchAttributeKey('IdvProvider', SearchAttributeType.KEYWORD);
/** Normalised status: starting, pending, succeeded, failed, cancelled, timed-out. */
export const IdvStatus = defineSearchAttributeKey('IdvStatus', SearchAttributeType.KEYWORD);
