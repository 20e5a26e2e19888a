/** Bounds of what a results fetch accepts from the service. */
export interface ResultLimits {
  /** Largest attachment stored (declared and actual size). @default 25 MiB */
  maxAttachmentBytes: number;
  /** Most attachments of one session. @default 20 */
  maxAttachments: number;
  /** Largest JSON of each identity field (person, document, match, providerOutput). @default 64 KiB */
  maxIdentityFieldBytes: number;
  /**
   * Largest results answer read (GetSessionResult's body, parsed whole): a provider's output may
   * hold images, and a field over `maxIdentityFieldBytes` is only marked, so the answer may be far
   * larger than what is kept. Read whole, so each results fetch at a time may hold this much
   * (three times over, parsed). @default 4 MiB
   */
  maxResultsAnswerBytes: number;
}

/** The defaults of {@link ResultLimits}. */
export const defaultResultLimits: ResultLimits = {
  maxAttachmentBytes: 25 * 1024 * 1024,
  maxAttachments: 20,
  maxIdentityFieldBytes: 64 * 1024,
  maxResultsAnswerBytes: 4 * 1024 * 1024,
};

/**
 * How long, from the fetch's first attempt, a succeeded session answered without identity data
 * (`identityData: null`, which the interface allows: not assembled yet, or already erased), its
 * results or an attachment answered 404 (which it does not define), is asked again before its
 * results count as unavailable.
 */
export const MISSING_IDENTITY_WAIT_MS = 5 * 60_000;

/** A succeeded session answered without identity data, or 404: retried (see {@link MISSING_IDENTITY_WAIT_MS}). */
export class ResultsNotReadyError extends Error {
  override readonly name = 'ResultsNotReadyError';
}

/** Thrown when a session's results exceed a bound; not retried (the answer would be the same). */
export class ResultsRefusedError extends Error {
  override readonly name = 'ResultsRefusedError';
}

/**
 * Identity data with each field bounded: a field whose JSON exceeds the bound (a provider's
 * output, typically) is replaced by a marker saying so, never copied whole into the outcome.
 */
export function boundIdentity(
  identity: Record<string, unknown>,
  maxFieldBytes: number,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(identity).map(([field, value]) => {
      const sizeBytes = Buffer.byteLength(JSON.stringify(value ?? null));
      return [field, sizeBytes > maxFieldBytes ? { omitted: 'too-large', sizeBytes } : value];
    }),
  );
}
