import { MockAgent } from 'undici';
import type { MockInterceptor } from 'undici/types/mock-interceptor';
import { createAgentClient } from '../../api/agent/agent-client';
import { createIdentityClient } from '../../api/identity/identity-client';

export const ORIGIN = 'https://idv.test';
export const API_KEY = 'sk_test_secret_key_value';

/** A request as the mock service saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Identity and agent clients wired to an undici MockAgent that refuses real connections. */
export function mockService() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const identity = createIdentityClient({
    baseUrl: ORIGIN,
    apiKey: API_KEY,
    dispatcher: agent,
    budget: 'unlimited',
  });
  const earlier = createAgentClient({
    baseUrl: `${ORIGIN}/credentials/v1`,
    apiKey: API_KEY,
    dispatcher: agent,
  });
  const seen: SeenRequest[] = [];

  /** Answers the next matching request and records it. */
  function answer(
    match: { method: string; path: string },
    status: number,
    data?: unknown,
    headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' },
  ): void {
    pool
      .intercept({ method: match.method, path: match.path })
      .reply((options: MockInterceptor.MockResponseCallbackOptions) => {
        seen.push({
          method: options.method,
          path: options.path,
          headers: normaliseHeaders(options.headers),
          body: typeof options.body === 'string' ? JSON.parse(options.body) : undefined,
        });
        const payload = data === undefined ? '' : typeof data === 'string' ? data : JSON.stringify(data);
        return { statusCode: status, data: payload, responseOptions: { headers } };
      });
  }

  return { agent, pool, identity, earlier, seen, answer };
}

function normaliseHeaders(
  headers: MockInterceptor.MockResponseCallbackOptions['headers'],
): Record<string, string> {
  if (!headers) return {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), String(value)]));
}

export const SESSION_ID = '678c1ff6-2178-49e7-81d2-548afb6f85ec';
export const PROFILE_ID = '046b6c7f-0b8a-43b9-b35d-6489e6daee91';
export const ATTACHMENT_ID = '9b2f1d52-93a5-4c0a-8f3e-2f5f0d1a7c11';

export const doneSession = {
  id: SESSION_ID,
  done: true,
  success: true,
  errorCode: null,
  created: 1722526411,
  updated: 1722526722,
};

export const launchStep = {
  method: 'DeeplinkToMobile',
  content: 'https://verify.example/launch?t=abc',
  refresh: {
    expiresAt: '2026-11-22T10:05:00Z',
    refreshAfter: '2026-11-22T10:04:00Z',
    timeToLiveSeconds: 300,
  },
};

export const provider = {
  id: 'trinsic-test-database-lookup',
  name: 'Test Database Lookup',
  logoUrl: 'https://cdn.example/p.png',
  subtext: 'test',
  description: 'test provider',
  geography: ['Global'],
  regions: ['Europe'],
  countries: ['US'],
  subdivisions: [],
  licensed: true,
  launchMethod: 'LaunchBrowser',
  collectionMethod: 'PollResult',
  resultsMayBeDelayedAfterRedirect: false,
  hasRefreshableContent: false,
  requiresInput: true,
  hasTrinsicInterface: true,
  supportsDirectProviderSessions: true,
  liveHealth: 'Online',
  testHealth: 'Online',
};

/** Registers a fresh mock service per test (checking no interceptor was left unused) and returns a getter. */
export function useMockService(options: { strict?: boolean } = {}): () => ReturnType<typeof mockService> {
  let service: ReturnType<typeof mockService> | undefined;
  beforeEach(() => {
    service = mockService();
  });
  afterEach(async () => {
    if (options.strict !== false) service?.agent.assertNoPendingInterceptors();
    await service?.agent.close();
  });
  return () => {
    if (!service) throw new Error('useMockService: no service outside a test');
    return service;
  };
}
