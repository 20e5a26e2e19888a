/** A redirect URI an authorize request needs, those registered, and the one that already allows it. */
export interface CoveringCase {
  description: string;
  needed: string;
  registered: string[];
  /** The registered URI as written, or undefined when none allows `needed`. */
  expected: string | undefined;
}

/** When a registered redirect URI already allows the one a request needs (interface, parts 2 and 4). */
export const coveringCases: CoveringCase[] = [
  {
    description: 'the same URI',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://other.example/callback', 'https://verifier.acme.example/callback'],
    expected: 'https://verifier.acme.example/callback',
  },
  {
    description: 'the host in another case',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://Verifier.ACME.Example/callback'],
    expected: 'https://Verifier.ACME.Example/callback',
  },
  {
    description: 'the scheme in capitals',
    needed: 'https://verifier.acme.example/callback',
    registered: ['HTTPS://verifier.acme.example/callback'],
    expected: 'HTTPS://verifier.acme.example/callback',
  },
  {
    description: 'the default https port written out',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://verifier.acme.example:443/callback'],
    expected: 'https://verifier.acme.example:443/callback',
  },
  {
    description: 'the default http port written out',
    needed: 'http://localhost/callback',
    registered: ['http://localhost:80/callback'],
    expected: 'http://localhost:80/callback',
  },
  {
    description: 'not: another port',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://verifier.acme.example:8443/callback'],
    expected: undefined,
  },
  {
    description: 'an origin with or without its trailing slash (the same URL)',
    needed: 'https://verifier.acme.example',
    registered: ['https://verifier.acme.example/'],
    expected: 'https://verifier.acme.example/',
  },
  {
    description: 'not: a path with a trailing slash the needed one lacks',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://verifier.acme.example/callback/'],
    expected: undefined,
  },
  {
    description: 'not: a path in another case (paths are case-sensitive)',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://verifier.acme.example/Callback'],
    expected: undefined,
  },
  {
    description: 'not: the same path with a query the registered one lacks',
    needed: 'https://app.health.example/cb?tenant=7',
    registered: ['https://app.health.example/cb'],
    expected: undefined,
  },
  {
    description: '`*` at the end of the path',
    needed: 'https://verifier.acme.example/callback/driver-licence-check',
    registered: ['https://verifier.acme.example/callback/*'],
    expected: 'https://verifier.acme.example/callback/*',
  },
  {
    description: '`*` across path segments',
    needed: 'https://verifier.acme.example/callback/eu/driver-licence-check',
    registered: ['https://verifier.acme.example/callback/*'],
    expected: 'https://verifier.acme.example/callback/*',
  },
  {
    description: 'not: `*` after a slash the needed path does not have',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://verifier.acme.example/callback/*'],
    expected: undefined,
  },
  {
    description: 'not: `*` under a path in another case',
    needed: 'https://verifier.acme.example/callback/kyc',
    registered: ['https://verifier.acme.example/Callback/*'],
    expected: undefined,
  },
  {
    description: '`*` in the query',
    needed: 'https://app.health.example/cb?tenant=7&lang=de',
    registered: ['https://app.health.example/cb?*'],
    expected: 'https://app.health.example/cb?*',
  },
  {
    description: '`*` in the host',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://*.acme.example/callback'],
    expected: 'https://*.acme.example/callback',
  },
  {
    description: 'not: `*` in the host, for the bare domain',
    needed: 'https://acme.example/callback',
    registered: ['https://*.acme.example/callback'],
    expected: undefined,
  },
  {
    description: 'not: `*` in the host for two labels (read narrowly: one label)',
    needed: 'https://eu.verifier.acme.example/callback',
    registered: ['https://*.acme.example/callback'],
    expected: undefined,
  },
  {
    description: 'not: `*` in the path for a query (read narrowly: the path only)',
    needed: 'https://app.health.example/cb?tenant=7',
    registered: ['https://app.health.example/*'],
    expected: undefined,
  },
  {
    description: '`*` with the host in capitals and the default port written out',
    needed: 'https://verifier.acme.example/callback/kyc',
    registered: ['https://*.ACME.example:443/callback/*'],
    expected: 'https://*.ACME.example:443/callback/*',
  },
  {
    description: '`*` under a non-ASCII path (compared as the URL encodes it)',
    needed: 'https://verifier.acme.example/café/retour',
    registered: ['https://verifier.acme.example/café/*'],
    expected: 'https://verifier.acme.example/café/*',
  },
  {
    description: 'not: a dot of the registered URI is a dot, not any character',
    needed: 'https://verifier.acme.example/axb/kyc',
    registered: ['https://verifier.acme.example/a.b/*'],
    expected: undefined,
  },
  {
    description: 'the first registered URI that allows it',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://verifier.acme.example/*', 'https://verifier.acme.example/callback'],
    expected: 'https://verifier.acme.example/*',
  },
  {
    description: 'not: another host',
    needed: 'https://verifier.acme.example/callback',
    registered: ['https://verifier.acme.test/callback', 'https://acme.example/callback'],
    expected: undefined,
  },
  {
    description: 'not: nothing registered',
    needed: 'https://verifier.acme.example/callback',
    registered: [],
    expected: undefined,
  },
];
