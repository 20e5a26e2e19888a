import { z } from 'zod';

const availabilitySchema = z.object({ outputted: z.string() });

/** A provider of the catalogue. Enumerated fields stay text so new values do not break reads. */
export const providerSchema = z.object({
  id: z.string(),
  name: z.string(),
  logoUrl: z.string(),
  subtext: z.string(),
  description: z.string(),
  regions: z.array(z.string()),
  countries: z.array(z.string()),
  subdivisions: z.array(z.string()),
  licensed: z.boolean(),
  launchMethod: z.string(),
  collectionMethod: z.string(),
  resultsMayBeDelayedAfterRedirect: z.boolean(),
  hasRefreshableContent: z.boolean(),
  requiresInput: z.boolean(),
  hasTrinsicInterface: z.boolean(),
  supportsDirectProviderSessions: z.boolean(),
  supportedLanguages: z.array(z.object({ code: z.string(), label: z.string().nullish() })).nullish(),
  availableAttributes: z.array(availabilitySchema.extend({ scope: z.string() })).nullish(),
  availableAttachments: z.array(availabilitySchema.extend({ type: z.string() })).nullish(),
  subProviders: z
    .array(z.object({ id: z.string(), name: z.string(), subtext: z.string(), logoUrl: z.string() }))
    .nullish(),
  liveHealth: z.string(),
  testHealth: z.string(),
});
/** A provider. */
export type Provider = z.infer<typeof providerSchema>;

/** Answer of ListProviders. */
export const listProvidersResponseSchema = z.object({ providers: z.array(providerSchema) });

/** Answer of GetProvider. */
export const getProviderResponseSchema = z.object({ provider: providerSchema });
