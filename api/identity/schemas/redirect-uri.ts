import { z } from 'zod';

/** A registered redirect URI. */
export const redirectUriSchema = z.object({ id: z.string(), uri: z.string() });
/** A registered redirect URI. */
export type RedirectUri = z.infer<typeof redirectUriSchema>;

/** Answer of List (redirect URIs). */
export const listRedirectUrisResponseSchema = z.object({
  uris: z.array(redirectUriSchema),
  more: z.boolean(),
});
/** One page of redirect URIs. */
export type ListRedirectUrisResponse = z.infer<typeof listRedirectUrisResponseSchema>;

/** Answer of Add (redirect URI). */
export const addRedirectUriResponseSchema = z.object({ id: z.string() });
