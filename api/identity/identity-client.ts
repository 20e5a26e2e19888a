import { type CallBudget } from '../http/call-budget';
import { HttpCore, type HttpCoreOptions } from '../http/http-core';
import { type IdentityRegion, resolveIdentityBaseUrl } from './base-urls';
import { ProvidersApi } from './providers-api';
import { RedirectUrisApi } from './redirect-uris-api';
import { SessionsApi } from './sessions-api';

/** Options of {@link createIdentityClient}. */
export interface IdentityClientOptions extends Omit<HttpCoreOptions, 'baseUrl'> {
  /** Explicit base address (the emulator's, a proxy's); wins over `region`. */
  baseUrl?: string;
  /** Deployment to use when no base address is given. @default 'us' */
  region?: IdentityRegion;
}

/** Typed client of the identity service. */
export interface IdentityClient {
  sessions: SessionsApi;
  providers: ProvidersApi;
  redirectUris: RedirectUrisApi;
  /** The call budget its requests share (`budget` option), if any. */
  budget: CallBudget | undefined;
  /** Closes keep-alive connections. */
  close(): Promise<void>;
}

/** Creates a client of the identity service over one shared keep-alive connection pool. */
export function createIdentityClient(options: IdentityClientOptions): IdentityClient {
  const http = new HttpCore({ ...options, baseUrl: resolveIdentityBaseUrl(options) });
  return {
    sessions: new SessionsApi(http),
    providers: new ProvidersApi(http),
    redirectUris: new RedirectUrisApi(http),
    budget: http.budget,
    close: () => http.close(),
  };
}
