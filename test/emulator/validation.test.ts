import { call, testProviderSession, useEmulator } from './wire';

// Each validation rule of the interface, with its exact status and `errors` key.
describe('emulator validation', () => {
  const emulator = useEmulator();
  const zeroId = '00000000-0000-0000-0000-000000000000';
  const profileId = () => emulator().verificationProfiles[0]?.id ?? '';

  async function errorsOf(method: string, path: string, options: Parameters<typeof call>[3] = {}) {
    const response = await call(emulator(), method, path, options);
    expect(response.status).toBe(400);
    expect(response.contentType).toMatch(/^application\/problem\+json/);
    return Object.keys(response.json.errors ?? {});
  }

  it.each([
    ['GET', '/api/v1/sessions/not-a-uuid', 'sessionId'],
    ['POST', `/api/v1/sessions/${zeroId}/attachments/nope/get`, 'attachmentId'],
    ['DELETE', '/api/valpha/redirect-uris/123', 'id'],
    ['GET', '/api/v1/verification-profiles/xyz/sessions', 'verificationProfileId'],
  ])('%s %s with a malformed uuid → 400 naming %s', async (method, path, key) => {
    const body = method === 'POST' ? { resultsAccessKey: 'k' } : undefined;
    expect(await errorsOf(method, path, { body })).toEqual([key]);
  });

  it.each([
    ['PageSize=0', 'PageSize'],
    ['PageSize=51', 'PageSize'],
    ['Page=0', 'Page'],
    ['Page=abc', 'Page'],
    ['OrderBy=Name', 'OrderBy'],
    ['OrderDirection=Up', 'OrderDirection'],
  ])('ListSessions with %s → 400 naming %s', async (query, key) => {
    expect(await errorsOf('GET', `/api/v1/verification-profiles/${profileId()}/sessions?${query}`)).toEqual([
      key,
    ]);
  });

  it('ListSessions accepts PageSize 50', async () => {
    const response = await call(
      emulator(),
      'GET',
      `/api/v1/verification-profiles/${profileId()}/sessions?PageSize=50&Page=2147483647`,
    );
    expect(response.status).toBe(200);
  });

  it.each([
    ['pageSize=0', 'pageSize'],
    ['pageSize=101', 'pageSize'],
    ['page=0', 'page'],
  ])('List redirect URIs with %s → 400 naming %s', async (query, key) => {
    expect(await errorsOf('GET', `/api/valpha/redirect-uris?${query}`)).toEqual([key]);
  });

  it('ListProviders with a non-boolean licensed → 400 naming licensed', async () => {
    expect(await errorsOf('GET', '/api/v1/providers?licensed=maybe')).toEqual(['licensed']);
  });

  it.each([[{ uri: '/relative' }], [{ uri: '' }], [{}]])(
    'Add redirect URI %j → 400 naming uri',
    async (body) => {
      expect(await errorsOf('POST', '/api/valpha/redirect-uris', { body })).toEqual(['uri']);
    },
  );

  it('Add redirect URI accepts the wildcard *', async () => {
    const response = await call(emulator(), 'POST', '/api/valpha/redirect-uris', {
      body: { uri: 'https://*.example.com/cb/*' },
    });
    expect(response.status).toBe(201);
  });

  it.each([
    [{ provider: 'yoti', capabilities: ['PollResult'] }, 'verificationProfileId'],
    [
      { verificationProfileId: 'abc', provider: 'yoti', capabilities: ['PollResult'] },
      'verificationProfileId',
    ],
    [{ verificationProfileId: zeroId, capabilities: ['PollResult'] }, 'provider'],
    [{ verificationProfileId: zeroId, provider: 'yoti', capabilities: [] }, 'capabilities'],
    [{ verificationProfileId: zeroId, provider: 'yoti' }, 'capabilities'],
    [{ verificationProfileId: zeroId, provider: 'yoti', capabilities: ['Teleport'] }, 'capabilities'],
    [
      {
        verificationProfileId: zeroId,
        provider: 'yoti',
        capabilities: ['PollResult'],
        redirectUrl: 'done.html',
      },
      'redirectUrl',
    ],
    [
      {
        verificationProfileId: zeroId,
        provider: 'yoti',
        capabilities: ['PollResult'],
        fallbackToHostedUI: 'yes',
      },
      'fallbackToHostedUI',
    ],
  ])('CreateDirectProviderSession %j → 400 naming %s', async (body, key) => {
    expect(await errorsOf('POST', '/api/v1/sessions/provider/direct', { body })).toEqual([key]);
  });

  it('rejects malformed JSON with the $ key', async () => {
    expect(await errorsOf('POST', '/api/valpha/redirect-uris', { rawBody: '{"uri": ' })).toEqual(['$']);
  });

  it('rejects an empty body with the $ key', async () => {
    expect(
      await errorsOf('POST', '/api/valpha/redirect-uris', { rawBody: '', contentType: 'application/json' }),
    ).toEqual(['$']);
  });

  it('rejects a body of another content type with the Content-Type key', async () => {
    expect(
      await errorsOf('POST', '/api/valpha/redirect-uris', {
        rawBody: 'uri=x',
        contentType: 'application/x-www-form-urlencoded',
      }),
    ).toEqual(['Content-Type']);
  });

  it.each(['text/json', 'application/merge-patch+json', 'application/json; charset=utf-8'])(
    'accepts a body sent as %s',
    async (contentType) => {
      const response = await call(emulator(), 'POST', '/api/valpha/redirect-uris', {
        rawBody: '{"uri":"https://a.example/cb"}',
        contentType,
      });
      expect(response.status).toBe(201);
    },
  );

  it('answers a capability combination the provider cannot serve without fallback with "not supported for the configuration"', async () => {
    const response = await call(emulator(), 'POST', '/api/v1/sessions/provider/direct', {
      body: {
        verificationProfileId: profileId(),
        provider: 'yoti',
        capabilities: ['LaunchBrowser', 'PollResult'],
      },
    });
    expect(response.status).toBe(400);
    expect(response.json.detail).toContain('not supported for your configuration');
    expect(response.json.errors).toBeUndefined();
  });

  it('falls back to the hosted UI for the same combination when asked to', async () => {
    const response = await call(emulator(), 'POST', '/api/v1/sessions/provider/direct', {
      body: {
        verificationProfileId: profileId(),
        provider: 'yoti',
        capabilities: ['LaunchBrowser', 'CaptureRedirect'],
        fallbackToHostedUI: true,
        redirectUrl: 'https://app.example/done',
      },
    });
    expect(response.status).toBe(200);
    expect(response.json.nextStep.method).toBe('LaunchBrowser');
    expect(response.json.resultCollection.method).toBe('CaptureRedirect');
  });

  it('requires a redirect URL and LaunchBrowser + CaptureRedirect when falling back', async () => {
    const keys = await errorsOf('POST', '/api/v1/sessions/provider/direct', {
      body: {
        verificationProfileId: profileId(),
        provider: 'yoti',
        capabilities: ['PollResult'],
        fallbackToHostedUI: true,
      },
    });
    expect(keys.sort()).toEqual(['capabilities', 'redirectUrl']);
  });

  it('requires the test provider’s input without fallback', async () => {
    const body = { ...testProviderSession(profileId()), providerInput: null };
    expect(await errorsOf('POST', '/api/v1/sessions/provider/direct', { body })).toEqual(['providerInput']);
  });

  it('requires resultsAccessKey and responseToken', async () => {
    const created = await call(emulator(), 'POST', '/api/v1/sessions/provider/direct', {
      body: testProviderSession(profileId()),
    });
    const id = String(created.json.sessionId);
    expect(await errorsOf('POST', `/api/v1/sessions/${id}/results`, { body: {} })).toEqual([
      'resultsAccessKey',
    ]);
    expect(
      await errorsOf('POST', `/api/v1/sessions/${id}/native-challenge/submit`, {
        body: { resultsAccessKey: created.json.resultCollection.resultsAccessKey },
      }),
    ).toEqual(['responseToken']);
  });

  it.each([
    ['GET', `/api/v1/sessions/${zeroId}`],
    ['POST', `/api/v1/sessions/${zeroId}/cancel`],
    ['POST', `/api/v1/sessions/${zeroId}/redact`],
    ['DELETE', `/api/valpha/redirect-uris/${zeroId}`],
    ['GET', `/api/v1/verification-profiles/${zeroId}/sessions`],
    ['GET', '/api/v1/providers/unknown-provider'],
  ])('%s %s with an unknown id → 404 problem details', async (method, path) => {
    const response = await call(emulator(), method, path);
    expect(response.status).toBe(404);
    expect(response.contentType).toMatch(/^application\/problem\+json/);
    expect(response.json).toMatchObject({ status: 404, title: 'Not Found' });
  });
});
