const SECOND = 1_000;
const DAY = 86_400_000;

/**
 * The bounds of a verification's durations, checked where requests enter (the client's schema)
 * and again by the workflow itself, so input that bypassed the client fails at once instead of
 * overflowing a timer or a date.
 */
export const verificationLimits = {
  /** Auto-cancel deadline: a verification never runs longer than 30 days. */
  timeout: { minMs: SECOND, maxMs: 30 * DAY },
  /** Delay of the redaction after the outcome (or `never`). */
  redactAfter: { minMs: 0, maxMs: 365 * DAY },
  /** Poll intervals. */
  pollingMs: { minMs: 100, maxMs: 300_000 },
  pollingInitialMaxMs: 60_000,
  /** A poll attempt's bound (see `polling.attemptMs`): 1 minute holds one poll, 1 hour the most. */
  pollAttemptMs: { minMs: 60 * SECOND, maxMs: 3_600 * SECOND },
  /**
   * The person's `providerInput`, as JSON: it travels sealed (a third larger) in the workflow's
   * input and the create's, Temporal payloads of at most 2 MB each.
   */
  providerInputBytes: 1_048_576,
  /** Browser language preferences: entries, and characters per BCP 47 tag. */
  browserLanguages: 32,
  languageTagLength: 35,
} as const;
