import { z } from 'zod';
import { integrationCapabilities, orderDirections, sessionOrderings } from '../../common/identity-enums';

const MAX_INT32 = 2_147_483_647;

/** A uuid path parameter or field (any 8-4-4-4-12 hex form; the service decides the rest). */
export const uuidSchema = z.guid({ message: 'must be a uuid' });

/** An absolute URI; the wildcard `*` is accepted anywhere in it. */
export const absoluteUriSchema = z.string().refine(
  (value) => {
    try {
      new URL(value.replaceAll('*', 'wildcard'));
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be an absolute URI' },
);

const pageSchema = z.number().int().min(1).max(MAX_INT32);

/** Body of CreateDirectProviderSession, checked before sending. */
export const createDirectProviderSessionRequestSchema = z.strictObject({
  verificationProfileId: uuidSchema,
  provider: z.string().min(1, { message: 'is required' }),
  capabilities: z.array(z.enum(integrationCapabilities)).min(1, { message: 'needs at least one capability' }),
  fallbackToHostedUI: z.boolean().nullish(),
  redirectUrl: absoluteUriSchema.nullish(),
  browserLanguages: z.array(z.string()).nullish(),
  providerInput: z.record(z.string(), z.unknown()).nullish(),
});
/** What CreateDirectProviderSession takes. */
export type CreateDirectProviderSessionRequest = z.input<typeof createDirectProviderSessionRequestSchema>;

/** Query of ListSessions. */
export const listSessionsQuerySchema = z.strictObject({
  orderBy: z.enum(sessionOrderings).optional(),
  orderDirection: z.enum(orderDirections).optional(),
  pageSize: z.number().int().min(1).max(50).optional(),
  page: pageSchema.optional(),
});
/** Options of ListSessions. */
export type ListSessionsQuery = z.infer<typeof listSessionsQuerySchema>;

/** Query of List (redirect URIs). */
export const listRedirectUrisQuerySchema = z.strictObject({
  page: pageSchema.optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
});
/** Options of List (redirect URIs). */
export type ListRedirectUrisQuery = z.infer<typeof listRedirectUrisQuerySchema>;

/** A required, non-empty text argument (results access key, response token, ids of the earlier platform). */
export const requiredTextSchema = z.string().min(1, { message: 'is required' });
