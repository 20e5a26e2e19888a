import { z } from 'zod';

/** Refresh metadata of a step whose content expires. */
export const stepRefreshInfoSchema = z.object({
  expiresAt: z.string(),
  refreshAfter: z.string(),
  timeToLiveSeconds: z.number().int(),
});

/** The next step the user must take (`nextStep`). Unknown launch methods are kept as text. */
export const integrationStepSchema = z.object({
  method: z.string(),
  content: z.string(),
  refresh: stepRefreshInfoSchema.nullish(),
});
/** A step of a Direct Provider Session. */
export type IntegrationStep = z.infer<typeof integrationStepSchema>;

/** How results are collected, with the key that unlocks the session's data vault. */
export const resultCollectionSchema = z.object({
  method: z.string(),
  resultsAccessKey: z.string().min(1),
});
/** `resultCollection` of a created session. */
export type ResultCollection = z.infer<typeof resultCollectionSchema>;

/**
 * A session as either API generation sends it: `done/success/errorCode` (current) or
 * `state/failCode` (older). `domain/session-status` normalises both.
 */
export const sessionSchema = z
  .object({
    id: z.string(),
    done: z.boolean().optional(),
    success: z.boolean().optional(),
    errorCode: z.string().nullish(),
    state: z.string().optional(),
    failCode: z.string().nullish(),
    created: z.number().optional(),
    updated: z.number().optional(),
  })
  .refine((session) => session.done !== undefined || session.state !== undefined, {
    message: 'a session carries neither `done` nor `state`',
  });
/** A session of either generation. */
export type Session = z.infer<typeof sessionSchema>;

/** Answer of GetSession, CancelSession and SubmitNativeChallengeResponse. */
export const sessionEnvelopeSchema = z.object({ session: sessionSchema });

/**
 * Answer of CreateDirectProviderSession. A `sessionId` that is not a uuid makes the answer
 * malformed for good: retrying would create another session.
 */
export const createDirectProviderSessionResponseSchema = z.object({
  sessionId: z.guid(),
  resultCollection: resultCollectionSchema,
  nextStep: integrationStepSchema,
});
/** A created Direct Provider Session. */
export type CreateDirectProviderSessionResponse = z.infer<typeof createDirectProviderSessionResponseSchema>;

/** Answer of RefreshStepContent. */
export const refreshStepContentResponseSchema = z.object({ nextStep: integrationStepSchema });

/** Answer of ListSessions. */
export const listSessionsResponseSchema = z.object({
  sessions: z.array(sessionSchema),
  total: z.number().int(),
  more: z.boolean(),
});
/** One page of sessions. */
export type ListSessionsResponse = z.infer<typeof listSessionsResponseSchema>;
