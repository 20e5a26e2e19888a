/**
 * Patch ids (`patched()`): each marks where runs started before a change take the old path on
 * replay. Histories of those runs are kept in test/replay/legacy/.
 */
export const patches = {
  /** Redaction: end the session, delete local data, then redact (before: redact, then delete). */
  endDeleteThenRedact: 'end-delete-then-redact',
  /**
   * Data keys: new runs require a sealed input with `dataKeyId`; clean-up forgets answered
   * create attempts and destroys the data key of a verification without a session.
   */
  dataKeys: 'data-keys',
  /** Redaction: local data and the data key go at their due time, while the session is being ended. */
  shredAtDueTime: 'shred-at-due-time',
  /** Polling: one GetSession per attempt of a retried `pollSession` (before: a held, heartbeating `awaitSessionOutcome`). */
  pollsAsRetries: 'polls-as-retries',
} as const;
