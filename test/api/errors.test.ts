import {
  type ApiError,
  ConflictError,
  ForbiddenError,
  MalformedResponseError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  UnexpectedStatusError,
  ValidationError,
} from '../../api/http/errors';
import { inspect } from 'node:util';
import { toActivityFailure } from '../../verification/activities/failures';
import { API_KEY, type mockService, PROFILE_ID, useMockService, SESSION_ID } from './mock-service';

const problem = { 'content-type': 'application/problem+json' };
const getSession = { method: 'GET', path: `/api/v1/sessions/${SESSION_ID}` };
const traceId = '00-982607166a542147b435be3a847ddd71-fc75498eb9f09d48-00';

describe('identity service client: errors', () => {
  const mock = useMockService({ strict: false });
  let service: ReturnType<typeof mockService>;
  beforeEach(() => {
    service = mock();
  });

  async function failure(call: () => Promise<unknown>): Promise<Error> {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof Error)) throw new Error('expected the call to fail');
    return error;
  }

  it('turns a 400 with an errors map into a ValidationError with per-property messages', async () => {
    service.answer(
      { method: 'POST', path: '/api/v1/sessions/provider/direct' },
      400,
      {
        type: 'https://tools.ietf.org/html/rfc7231#section-6.5.1',
        title: 'Bad Request',
        status: 400,
        traceId,
        errors: { Provider: ['The provider is unknown'] },
      },
      problem,
    );
    const error = await failure(() =>
      service.identity.sessions.createDirectProviderSession({
        verificationProfileId: PROFILE_ID,
        provider: 'nope',
        capabilities: ['LaunchBrowser'],
      }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    const validation = error as ValidationError;
    expect(validation).toMatchObject({
      status: 400,
      traceId,
      operation: 'CreateDirectProviderSession',
      retryable: false,
      sent: true,
    });
    expect(validation.errors).toEqual({ Provider: ['The provider is unknown'] });
    // Field names only: a service's messages may echo the person's input.
    expect(validation.message).toContain('invalid request: Provider');
    expect(validation.message).not.toContain('The provider is unknown');
  });

  it('keeps the detail of a 400 in `problem`, out of the message (it may echo personal input)', async () => {
    service.answer(
      getSession,
      400,
      { title: 'Bad Request', status: 400, detail: 'This feature is not supported for your configuration' },
      problem,
    );
    const error = await failure(() => service.identity.sessions.get(SESSION_ID));
    expect((error as ApiError).problem?.detail).toBe('This feature is not supported for your configuration');
    expect(error.message).not.toContain('not supported');
    expect(error.message).toContain('(Bad Request)');
  });

  it.each([
    [401, UnauthorizedError, false],
    [403, ForbiddenError, false],
    [404, NotFoundError, false],
    // Gone: the interface lists neither, and a session gone is a session the service does not know.
    [410, NotFoundError, false],
    [409, ConflictError, true],
    [500, ServerError, true],
    [503, ServerError, true],
    [418, UnexpectedStatusError, false],
    [408, UnexpectedStatusError, true],
    // A gateway's answers for a request it did not pass on, or will pass on later.
    [421, UnexpectedStatusError, true],
    [423, UnexpectedStatusError, true],
    [425, UnexpectedStatusError, true],
    // A redirect is no answer of the service's (undici follows none): a gateway failing over.
    [302, UnexpectedStatusError, true],
    [307, UnexpectedStatusError, true],
    [308, UnexpectedStatusError, true],
  ])('turns a %i into its error class (retryable: %s)', async (status, errorClass, retryable) => {
    service.answer(getSession, status, { title: 'x', status, traceId }, problem);
    const error = await failure(() => service.identity.sessions.get(SESSION_ID));
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ status, traceId, retryable, operation: 'GetSession' });
  });

  it('takes no redirect for the success of a call whose answer has no body (a redaction)', async () => {
    const redact = { method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/redact` };
    service.answer(redact, 307, '', { location: 'https://elsewhere.example/login' });
    const error = await failure(() => service.identity.sessions.redact(SESSION_ID));
    expect(error).toBeInstanceOf(UnexpectedStatusError);
    expect(error).toMatchObject({ status: 307, retryable: true, operation: 'RedactSession' });
  });

  it('reads Retry-After of a 429 in seconds', async () => {
    service.answer(
      getSession,
      429,
      { title: 'Too Many Requests', status: 429 },
      { ...problem, 'retry-after': '7' },
    );
    const error = await failure(() => service.identity.sessions.get(SESSION_ID));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 7000 });
  });

  it('reads Retry-After given as an HTTP date', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    service.answer(getSession, 429, '', { 'retry-after': at });
    const error = (await failure(() => service.identity.sessions.get(SESSION_ID))) as RateLimitedError;
    expect(error.retryAfterMs).toBeGreaterThan(25_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('classifies an HTML 502 from a proxy as a retryable ServerError and keeps the raw body aside', async () => {
    const html = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    service.answer(getSession, 502, html, { 'content-type': 'text/html' });
    const error = (await failure(() => service.identity.sessions.get(SESSION_ID))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 502, retryable: true, rawBody: html });
    expect(error.message).toBe('GetSession failed 502: server error (Bad Gateway)');
  });

  it('reports a truncated JSON body as a retryable MalformedResponseError', async () => {
    service.answer(getSession, 200, '{"session": {"id": "678c1ff6-21');
    const error = await failure(() => service.identity.sessions.get(SESSION_ID));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).toMatchObject({ retryable: true, status: 200 });
  });

  it('reports JSON of the wrong shape as a non-retryable MalformedResponseError naming the field', async () => {
    service.answer(getSession, 200, { session: { id: SESSION_ID, done: 'yes' } });
    const error = await failure(() => service.identity.sessions.get(SESSION_ID));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).toMatchObject({ retryable: false });
    expect(error.message).toContain('session.done');
  });

  it('keeps no trace of a malformed results answer (personal data) in the error or its activity failure', async () => {
    service.answer({ method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/results` }, 200, {
      session: { id: SESSION_ID, done: 'yes' },
      identityData: { person: { givenName: 'Zebulon', familyName: 'Quillfeather' }, attachments: [] },
    });
    const error = await failure(() => service.identity.sessions.getResult(SESSION_ID, 'key'));
    expect(error).toBeInstanceOf(MalformedResponseError);
    const failureOf = toActivityFailure(error);
    for (const text of [error.message, inspect(error, { depth: 5 }), inspect(failureOf, { depth: 5 })]) {
      expect(text).not.toMatch(/Zebulon|Quillfeather/);
    }
  });

  it.each([400, 500])(
    'keeps a %i answer that echoes the input out of the message and the activity failure',
    async (status) => {
      service.answer(
        getSession,
        status,
        {
          title: 'Quillfeather is not registered',
          status,
          detail: 'identityCode 987654 of Zebulon Quillfeather is unknown',
          errors: { 'providerInput.identityCode': ['987654 is not a valid code for Quillfeather'] },
        },
        problem,
      );
      const error = await failure(() => service.identity.sessions.get(SESSION_ID));
      for (const text of [error.message, inspect(toActivityFailure(error), { depth: 5 })]) {
        expect(text).not.toMatch(/Zebulon|Quillfeather|987654/);
      }
      if (status === 400) expect(error.message).toContain('providerInput.identityCode');
    },
  );

  it('refuses a create answer whose sessionId is not a uuid, for good (a retry would create another session)', async () => {
    service.answer({ method: 'POST', path: '/api/v1/sessions/provider/direct' }, 200, {
      sessionId: 'session-42',
      resultCollection: { method: 'PollResult', resultsAccessKey: 'k' },
      nextStep: { method: 'None', content: '' },
    });
    const error = await failure(() =>
      service.identity.sessions.createDirectProviderSession({
        verificationProfileId: PROFILE_ID,
        provider: 'trinsic-test-database-lookup',
        capabilities: ['PollResult'],
      }),
    );
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).toMatchObject({ retryable: false });
    expect(error.message).toContain('sessionId');
  });

  it('rejects a success answer that is not JSON', async () => {
    service.answer(getSession, 200, '<html>login</html>', { 'content-type': 'text/html' });
    const error = await failure(() => service.identity.sessions.get(SESSION_ID));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain('text/html');
  });

  it('turns a refused connection into a retryable NetworkError', async () => {
    service.pool
      .intercept(getSession)
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const error = await failure(() => service.identity.sessions.get(SESSION_ID));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ retryable: true, operation: 'GetSession' });
  });

  it('rethrows the caller’s abort instead of classifying it', async () => {
    service.answer(getSession, 200, { session: { id: SESSION_ID, done: false, success: false } });
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    controller.abort(reason);
    await expect(service.identity.sessions.get(SESSION_ID, { signal: controller.signal })).rejects.toBe(
      reason,
    );
  });

  it('never puts the API key or a results access key into messages', async () => {
    service.answer(
      { method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/results` },
      403,
      { title: 'Forbidden', status: 403 },
      problem,
    );
    const error = await failure(() => service.identity.sessions.getResult(SESSION_ID, 'rak_very_secret'));
    const everything = `${error.message} ${JSON.stringify(error)} ${String(error.stack)}`;
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain('rak_very_secret');
  });
});

describe('identity service client: arguments checked before sending', () => {
  const mock = useMockService({ strict: false });
  let service: ReturnType<typeof mockService>;
  beforeEach(() => {
    service = mock();
  });

  async function rejected(call: () => Promise<unknown>): Promise<ValidationError> {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(service.seen).toEqual([]);
    return error as ValidationError;
  }

  it('rejects a session id that is not a uuid, naming the field', async () => {
    const error = await rejected(() => service.identity.sessions.get('../providers'));
    expect(error).toMatchObject({ sent: false, status: undefined, operation: 'GetSession' });
    expect(error.errors).toEqual({ sessionId: ['must be a uuid'] });
  });

  it('rejects a PageSize outside 1..50 for ListSessions', async () => {
    const error = await rejected(() => service.identity.sessions.list(PROFILE_ID, { pageSize: 51 }));
    expect(Object.keys(error.errors)).toEqual(['pageSize']);
  });

  it('rejects a page below 1 and a pageSize above 100 for redirect URIs', async () => {
    const error = await rejected(() => service.identity.redirectUris.list({ page: 0, pageSize: 101 }));
    expect(Object.keys(error.errors).sort()).toEqual(['page', 'pageSize']);
  });

  it('rejects a relative redirect URI but accepts the wildcard', async () => {
    const error = await rejected(() => service.identity.redirectUris.add('/callback'));
    expect(error.errors).toEqual({ uri: ['must be an absolute URI'] });
  });

  it('rejects a session without provider or capabilities', async () => {
    const error = await rejected(() =>
      service.identity.sessions.createDirectProviderSession({
        verificationProfileId: PROFILE_ID,
        provider: '',
        capabilities: [],
      }),
    );
    expect(Object.keys(error.errors).sort()).toEqual(['capabilities', 'provider']);
  });

  it('rejects an unknown capability', async () => {
    const error = await rejected(() =>
      service.identity.sessions.createDirectProviderSession({
        verificationProfileId: PROFILE_ID,
        provider: 'p',
        // @ts-expect-error: a value outside the enumeration, as an untyped caller could send it
        capabilities: ['Teleport'],
      }),
    );
    expect(Object.keys(error.errors)).toEqual(['capabilities.0']);
  });

  it('rejects an empty results access key', async () => {
    const error = await rejected(() => service.identity.sessions.getResult(SESSION_ID, ''));
    expect(error.errors).toEqual({ resultsAccessKey: ['is required'] });
  });
});
