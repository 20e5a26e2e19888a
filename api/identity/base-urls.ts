/**
 * Deployments of the identity service. The production address is the OpenAPI document's
 * server; the interface document names an EU data-residency deployment (a preview) without
 * giving its address, so the EU entry follows the production host's naming and can always be
 * overridden with an explicit base URL.
 */
export const identityBaseUrls = {
  us: 'https://api.trinsic.id',
  eu: 'https://eu.api.trinsic.id',
} as const;

/** A deployment region. */
export type IdentityRegion = keyof typeof identityBaseUrls;

/** The base address to use: an explicit one wins over the region's. */
export function resolveIdentityBaseUrl(options: { baseUrl?: string; region?: IdentityRegion }): string {
  return options.baseUrl ?? identityBaseUrls[options.region ?? 'us'];
}
