import { createIdentityClient } from '../../api/identity/identity-client';
import {
  ConflictError,
  NetworkError,
  RateLimitedError,
  ServerError,
  TimeoutError,
} from '../../api/http/errors';
import { eventually } from '../harness/eventually';
import { testProviderRequest } from '../harness/requests';
import { call, useEmulator } from './wire';

describe('emulator fault injection', () => {
  const emulator = useEmulator();
  const createRequest = () => {
    const { reference: _, ...request } = testProviderRequest(
      'unused',
      emulator().verificationProfiles[0]?.id ?? '',
    );
    return { ...request, providerInput: request.providerInput as Record<string, unknown> };
  };
  const setFault = (body: unknown) => call(emulator(), 'PUT', '/_emulator/faults', { key: null, body });
  afterEach(async () => {
    await call(emulator(), 'DELETE', '/_emulator/faults', { key: null });
  });

  it('answers 500 problem details for the configured share of one operation', async () => {
    await setFault({ operation: 'ListProviders', errorRate: 1 });
    const failing = await call(emulator(), 'GET', '/api/v1/providers');
    expect(failing.status).toBe(500);
    expect(failing.contentType).toMatch(/problem\+json/);
    expect((await call(emulator(), 'GET', '/api/v1/providers/yoti')).status).toBe(200);
  });

  it('answers 429 with Retry-After', async () => {
    await setFault({ rateLimitRate: 1, retryAfterSeconds: 3 });
    const limited = await call(emulator(), 'GET', '/api/v1/providers');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('3');
  });

  it('ends after `count` affected requests', async () => {
    await setFault({ errorRate: 1, count: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await call(emulator(), 'GET', '/api/v1/providers')).status);
    expect(statuses).toEqual([500, 500, 200]);
  });

  it('lets `skip` requests through before the fault begins (a failure part way)', async () => {
    await setFault({ errorRate: 1, skip: 2, count: 1 });
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await call(emulator(), 'GET', '/api/v1/providers')).status);
    expect(statuses).toEqual([200, 200, 500, 200]);
  });

  it('drops connections, delays answers and slows bodies, as our client sees them', async () => {
    const client = createIdentityClient({
      baseUrl: emulator().baseUrl,
      apiKey: emulator().apiKeys[0] ?? '',
      bodyTimeoutMs: 5_000,
    });
    try {
      await setFault({ dropRate: 1 });
      await expect(client.providers.list()).rejects.toBeInstanceOf(NetworkError);
      await setFault({ latencyMs: 300, slowBodyMs: 300 });
      const started = Date.now();
      await expect(client.providers.list()).resolves.toHaveLength(6);
      expect(Date.now() - started).toBeGreaterThanOrEqual(550);
      await setFault({ errorRate: 1, errorStatus: 503 });
      await expect(client.providers.list()).rejects.toBeInstanceOf(ServerError);
      await setFault({ rateLimitRate: 1, retryAfterSeconds: 2 });
      await expect(client.providers.list()).rejects.toMatchObject({
        constructor: RateLimitedError,
        retryAfterMs: 2000,
      });
    } finally {
      await client.close();
    }
  });

  it('merges mergeBody into successful answers only, deep for objects', async () => {
    await setFault({ operation: 'GetProvider', mergeBody: { provider: { id: 'not-yoti' }, extra: true } });
    const merged = await call(emulator(), 'GET', '/api/v1/providers/yoti');
    expect(merged.json).toMatchObject({
      provider: { id: 'not-yoti', name: expect.any(String) },
      extra: true,
    });
    expect((await call(emulator(), 'GET', '/api/v1/providers/nobody')).status).toBe(404);
    const invalid = await setFault({ mergeBody: [1] });
    expect(Object.keys(invalid.json.errors)).toEqual(['mergeBody']);
  });

  it('carries out a late request after its client gave up (a create that lands after the timeout)', async () => {
    const client = createIdentityClient({
      baseUrl: emulator().baseUrl,
      apiKey: emulator().apiKeys[0] ?? '',
      headersTimeoutMs: 1_000,
      budget: 'unlimited',
    });
    try {
      await setFault({ operation: 'CreateDirectProviderSession', lateRate: 1, lateMs: 3_000, count: 1 });
      const before = emulator().store.sessions.size;
      const request = createRequest();
      await expect(client.sessions.createDirectProviderSession(request)).rejects.toBeInstanceOf(TimeoutError);
      expect(emulator().store.sessions.size).toBe(before);
      await eventually(
        () => Promise.resolve(emulator().store.sessions.size === before + 1 ? true : undefined),
        'the late create to land',
        5_000,
      );
      // `count` spent: the next create is answered at once.
      await expect(client.sessions.createDirectProviderSession(request)).resolves.toMatchObject({
        sessionId: expect.any(String),
      });
    } finally {
      await client.close();
    }
  });

  /** Runs `body` with an identity client of the emulator (no budget), closed afterwards. */
  async function withClient(body: (client: ReturnType<typeof createIdentityClient>) => Promise<void>) {
    const client = createIdentityClient({
      baseUrl: emulator().baseUrl,
      apiKey: emulator().apiKeys[0] ?? '',
      budget: 'unlimited',
    });
    try {
      await body(client);
    } finally {
      await client.close();
    }
  }

  it('touches only requests on finished sessions with whenSessionDone (a 409 for cancelling one)', async () => {
    await withClient(async (client) => {
      await setFault({ operation: 'CancelSession', errorRate: 1, errorStatus: 409, whenSessionDone: true });
      const create = () => client.sessions.createDirectProviderSession(createRequest());
      const finished = await create();
      await call(emulator(), 'POST', `/_emulator/sessions/${finished.sessionId}/complete`, { key: null });
      await expect(client.sessions.cancel(finished.sessionId)).rejects.toBeInstanceOf(ConflictError);
      const live = await create();
      await expect(client.sessions.cancel(live.sessionId)).resolves.toMatchObject({ done: true });
      const invalid = await setFault({ whenSessionDone: 'yes' });
      expect(Object.keys(invalid.json.errors)).toEqual(['whenSessionDone']);
    });
  });

  it('touches only requests naming its session with sessionId', async () => {
    await withClient(async (client) => {
      const create = () => client.sessions.createDirectProviderSession(createRequest());
      const [target, other] = [await create(), await create()];
      await setFault({
        operation: 'GetSession',
        errorRate: 1,
        errorStatus: 503,
        sessionId: target.sessionId,
      });
      await expect(client.sessions.get(other.sessionId)).resolves.toMatchObject({ done: false });
      await expect(client.sessions.get(target.sessionId)).rejects.toBeInstanceOf(ServerError);
      const invalid = await setFault({ sessionId: 7 });
      expect(Object.keys(invalid.json.errors)).toEqual(['sessionId']);
    });
  });

  it('rejects an invalid fault with an errors map', async () => {
    const response = await setFault({ errorRate: 3 });
    expect(response.status).toBe(400);
    expect(Object.keys(response.json.errors)).toEqual(['errorRate']);
  });

  it('refuses a delay longer than a timer holds (2^31 - 1 ms: a longer one would fire at once)', async () => {
    const tooLong = 2 ** 31;
    const response = await setFault({
      latencyMs: tooLong,
      slowBodyMs: tooLong,
      lateRate: 1,
      lateMs: tooLong,
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.json.errors).sort()).toEqual(['lateMs', 'latencyMs', 'slowBodyMs']);
    expect(response.json.errors.latencyMs).toEqual([
      'latencyMs must be at most 2147483647 (about 24.8 days).',
    ]);
    const longest = 2 ** 31 - 1;
    const accepted = await setFault({ operation: 'GetSession', latencyMs: longest, slowBodyMs: longest });
    expect(accepted.status).toBe(200);
  });
});
