import { CallBudget, DEFAULT_API_RATE } from '../http/call-budget';
import { HttpCore, type HttpCoreOptions } from '../http/http-core';
import { type IdentityRegion, resolveIdentityBaseUrl } from './base-urls';
import { ProvidersApi } from './providers-api';
import { RedirectUrisApi } from './redirect-uris-api';
import { SessionsApi } from './sessions-api';

/** Options of {@link createIdentityClient}. */
export interface IdentityClientOptions extends Omit<HttpCoreOptions, 'baseUrl' | 'budget'> {
  /** Explicit base address (the emulator's, a proxy's); wins over `region`. */
  baseUrl?: string;
  /** Deployment to use when no base address is given. @default 'us' */
  region?: IdentityRegion;
  /**
   * The limit on calls per second its requests share (pass one budget to several clients of a
   * process), or `'unlimited'`. @default a budget of its own at DEFAULT_API_RATE calls per second
   */
  budget?: CallBudget | 'unlimited';
}

/** Typed client of the identity service. */
export interface IdentityClient {
  sessions: SessionsApi;
  providers: ProvidersApi;
  redirectUris: RedirectUrisApi;
  /** The call budget its requests share; undefined when unlimited. */
  budget: CallBudget | undefined;
  /** Closes keep-alive connections. */
  close(): Promise<void>;
}

/** Creates a client of the identity service over one shared keep-alive connection pool. */
export function createIdentityClient(options: IdentityClientOptions): IdentityClient {
  const { budget: given, ...rest } = options;
  const owned = given === undefined ? new CallBudget({ callsPerSecond: DEFAULT_API_RATE }) : undefined;
  const budget = given === 'unlimited' ? undefined : (given ?? owned);
  const http = new HttpCore({
    ...rest,
    baseUrl: resolveIdentityBaseUrl(options),
    ...(budget ? { budget } : {}),
  });
  return {
    sessions: new SessionsApi(http),
    providers: new ProvidersApi(http),
    redirectUris: new RedirectUrisApi(http),
    budget: http.budget,
    close: async () => {
      owned?.close();
      await http.close();
    },
  };
}
