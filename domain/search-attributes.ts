/**
 * Custom search attributes of verification workflows. None carries personal data: only
 * service-issued identifiers, the provider id and the normalised status.
 */
export const searchAttributeTypes = {
  IdvSessionId: 'Keyword',
  IdvProfileId: 'Keyword',
  IdvProvider: 'Keyword',
  IdvStatus: 'Keyword',
} as const;

/** Name of one of our custom search attributes. */
export type IdvSearchAttributeName = keyof typeof searchAttributeTypes;
