import { createIdentityClient } from '../../api/identity/identity-client';
import {
  API_KEY,
  ATTACHMENT_ID,
  doneSession,
  launchStep,
  type mockService,
  PROFILE_ID,
  provider,
  SESSION_ID,
  useMockService,
} from './mock-service';

// One behaviour per operation: the exact method, path, query, headers and body sent, and the
// parsed answer.
describe('identity service client: request shapes', () => {
  const mock = useMockService();
  let service: ReturnType<typeof mockService>;
  beforeEach(() => {
    service = mock();
  });

  it('ListProviders sends GET /api/v1/providers with the licensed filter and a bearer key', async () => {
    service.answer({ method: 'GET', path: '/api/v1/providers?licensed=true' }, 200, {
      providers: [provider],
    });
    const providers = await service.identity.providers.list({ licensed: true });
    expect(providers.map((p) => p.id)).toEqual(['trinsic-test-database-lookup']);
    expect(service.seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(service.seen[0]?.headers.accept).toBe('application/json');
  });

  it('ListProviders without a filter sends no query', async () => {
    service.answer({ method: 'GET', path: '/api/v1/providers' }, 200, { providers: [] });
    await expect(service.identity.providers.list()).resolves.toEqual([]);
  });

  it('GetProvider encodes the provider id as one path segment', async () => {
    service.answer({ method: 'GET', path: '/api/v1/providers/a%2Fb%3Fc' }, 200, {
      provider: { ...provider, id: 'a/b?c' },
    });
    await expect(service.identity.providers.get('a/b?c')).resolves.toMatchObject({ id: 'a/b?c' });
  });

  it('List redirect URIs sends page and pageSize under /api/valpha', async () => {
    service.answer({ method: 'GET', path: '/api/valpha/redirect-uris?page=2&pageSize=100' }, 200, {
      uris: [{ id: PROFILE_ID, uri: 'https://app.example/*' }],
      more: false,
    });
    const page = await service.identity.redirectUris.list({ page: 2, pageSize: 100 });
    expect(page).toEqual({ uris: [{ id: PROFILE_ID, uri: 'https://app.example/*' }], more: false });
  });

  it('Add redirect URI posts {uri} as JSON and returns the id of the 201', async () => {
    service.answer({ method: 'POST', path: '/api/valpha/redirect-uris' }, 201, { id: PROFILE_ID });
    await expect(service.identity.redirectUris.add('https://*.app.example/callback')).resolves.toBe(
      PROFILE_ID,
    );
    expect(service.seen[0]?.body).toEqual({ uri: 'https://*.app.example/callback' });
    expect(service.seen[0]?.headers['content-type']).toBe('application/json');
  });

  it('Delete redirect URI sends DELETE and accepts the empty 204', async () => {
    service.answer({ method: 'DELETE', path: `/api/valpha/redirect-uris/${PROFILE_ID}` }, 204);
    await expect(service.identity.redirectUris.delete(PROFILE_ID)).resolves.toBeUndefined();
  });

  it('CreateDirectProviderSession posts the wire names of the OpenAPI document', async () => {
    service.answer({ method: 'POST', path: '/api/v1/sessions/provider/direct' }, 200, {
      sessionId: SESSION_ID,
      resultCollection: { method: 'PollResult', resultsAccessKey: 'rak_secret' },
      nextStep: launchStep,
    });
    const created = await service.identity.sessions.createDirectProviderSession({
      verificationProfileId: PROFILE_ID,
      provider: 'trinsic-test-database-lookup',
      capabilities: ['LaunchBrowser', 'CaptureRedirect'],
      fallbackToHostedUI: true,
      redirectUrl: 'https://app.example/done',
      browserLanguages: ['en'],
      providerInput: { 'trinsic-test-database-lookup': { identityCode: '123456' } },
    });
    expect(service.seen[0]?.body).toEqual({
      verificationProfileId: PROFILE_ID,
      provider: 'trinsic-test-database-lookup',
      capabilities: ['LaunchBrowser', 'CaptureRedirect'],
      fallbackToHostedUI: true,
      redirectUrl: 'https://app.example/done',
      browserLanguages: ['en'],
      providerInput: { 'trinsic-test-database-lookup': { identityCode: '123456' } },
    });
    expect(created).toEqual({
      sessionId: SESSION_ID,
      resultCollection: { method: 'PollResult', resultsAccessKey: 'rak_secret' },
      nextStep: launchStep,
    });
  });

  it('GetSession returns the session of the envelope', async () => {
    service.answer({ method: 'GET', path: `/api/v1/sessions/${SESSION_ID}` }, 200, { session: doneSession });
    await expect(service.identity.sessions.get(SESSION_ID)).resolves.toEqual(doneSession);
  });

  it('GetSession reads the older state/failCode generation too', async () => {
    const older = { id: SESSION_ID, state: 'IdvFailed', failCode: 'FailCodeUserCanceled' };
    service.answer({ method: 'GET', path: `/api/v1/sessions/${SESSION_ID}` }, 200, { session: older });
    await expect(service.identity.sessions.get(SESSION_ID)).resolves.toEqual(older);
  });

  it('ListSessions sends OrderBy, OrderDirection, PageSize and Page', async () => {
    service.answer(
      {
        method: 'GET',
        path: `/api/v1/verification-profiles/${PROFILE_ID}/sessions?OrderBy=Updated&OrderDirection=Descending&PageSize=50&Page=3`,
      },
      200,
      { sessions: [doneSession], total: 101, more: true },
    );
    const page = await service.identity.sessions.list(PROFILE_ID, {
      orderBy: 'Updated',
      orderDirection: 'Descending',
      pageSize: 50,
      page: 3,
    });
    expect(page).toEqual({ sessions: [doneSession], total: 101, more: true });
  });

  it('GetSessionResult posts the results access key and returns identity data', async () => {
    const identityData = {
      originatingProviderId: 'trinsic-test-database-lookup',
      person: { givenName: 'Ada', familyName: 'Lovelace', dateOfBirth: '1815-12-10' },
      attachments: [{ id: ATTACHMENT_ID, type: 'selfie', contentType: 'image/png', sizeBytes: 68 }],
    };
    service.answer({ method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/results` }, 200, {
      session: doneSession,
      identityData,
    });
    const result = await service.identity.sessions.getResult(SESSION_ID, 'rak_secret');
    expect(service.seen[0]?.body).toEqual({ resultsAccessKey: 'rak_secret' });
    expect(result.identityData?.person).toEqual(identityData.person);
    expect(result.identityData?.attachments).toEqual(identityData.attachments);
  });

  it('GetAttachment posts the results access key to the attachment path', async () => {
    service.answer(
      { method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/attachments/${ATTACHMENT_ID}/get` },
      200,
      {
        content: 'iVBORw0KGgo=',
        contentType: 'image/png',
      },
    );
    const attachment = await service.identity.sessions.getAttachment({
      sessionId: SESSION_ID,
      attachmentId: ATTACHMENT_ID,
      resultsAccessKey: 'rak_secret',
    });
    expect(attachment).toEqual({ content: 'iVBORw0KGgo=', contentType: 'image/png' });
    expect(service.seen[0]?.body).toEqual({ resultsAccessKey: 'rak_secret' });
  });

  it('CancelSession posts without a body and returns the session', async () => {
    const cancelled = { ...doneSession, success: false, errorCode: 'Canceled' };
    service.answer({ method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/cancel` }, 200, {
      session: cancelled,
    });
    await expect(service.identity.sessions.cancel(SESSION_ID)).resolves.toEqual(cancelled);
    expect(service.seen[0]?.body).toBeUndefined();
  });

  it('RedactSession posts and accepts a 200 without a body', async () => {
    service.answer({ method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/redact` }, 200);
    await expect(service.identity.sessions.redact(SESSION_ID)).resolves.toBeUndefined();
  });

  it('RefreshStepContent posts the results access key and returns the new step', async () => {
    service.answer({ method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/step/refresh` }, 200, {
      nextStep: launchStep,
    });
    await expect(service.identity.sessions.refreshStepContent(SESSION_ID, 'rak_secret')).resolves.toEqual(
      launchStep,
    );
    expect(service.seen[0]?.body).toEqual({ resultsAccessKey: 'rak_secret' });
  });

  it('SubmitNativeChallengeResponse posts the key and the response token', async () => {
    service.answer({ method: 'POST', path: `/api/v1/sessions/${SESSION_ID}/native-challenge/submit` }, 200, {
      session: doneSession,
    });
    await service.identity.sessions.submitNativeChallengeResponse({
      sessionId: SESSION_ID,
      resultsAccessKey: 'rak_secret',
      responseToken: 'device-token',
    });
    expect(service.seen[0]?.body).toEqual({ resultsAccessKey: 'rak_secret', responseToken: 'device-token' });
  });

  it.each([
    ['text/json', 'text/json'],
    ['text/plain', 'text/plain; charset=utf-8'],
  ])('accepts a %s success body of the same shape', async (_name, contentType) => {
    service.answer(
      { method: 'GET', path: `/api/v1/sessions/${SESSION_ID}` },
      200,
      { session: doneSession },
      { 'content-type': contentType },
    );
    await expect(service.identity.sessions.get(SESSION_ID)).resolves.toEqual(doneSession);
  });

  it('drops unknown extra fields of an answer', async () => {
    service.answer({ method: 'GET', path: `/api/v1/sessions/${SESSION_ID}` }, 200, {
      session: { ...doneSession, brandNewField: { nested: true } },
      anotherNewField: 1,
    });
    await expect(service.identity.sessions.get(SESSION_ID)).resolves.toEqual(doneSession);
  });

  it('keeps a path prefix of the base address', async () => {
    const prefixed = createIdentityClient({
      baseUrl: 'https://idv.test/proxy/',
      apiKey: API_KEY,
      dispatcher: service.agent,
    });
    service.answer({ method: 'GET', path: '/proxy/api/v1/providers' }, 200, { providers: [] });
    await expect(prefixed.providers.list()).resolves.toEqual([]);
  });
});
