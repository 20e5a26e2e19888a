import { call, testProviderSession, useEmulator } from './wire';

describe('emulator authentication and scoping', () => {
  const emulator = useEmulator({
    apiKeys: ['key-env-a', 'key-env-b'],
    agentKeys: { acme: 'agent-acme', globex: 'agent-globex' },
  });

  it.each([
    ['no Authorization header', null],
    ['an unknown key', 'not-a-key'],
  ])('answers %s with 401 problem details', async (_name, key) => {
    const response = await call(emulator(), 'GET', '/api/v1/providers', { key });
    expect(response.status).toBe(401);
    expect(response.contentType).toMatch(/^application\/problem\+json/);
    expect(response.json).toMatchObject({ status: 401, title: 'Unauthorized' });
    expect(typeof response.json.traceId).toBe('string');
  });

  it('answers a session of another environment with 403', async () => {
    const profileA = emulator().verificationProfiles.find((p) => p.apiKey === 'key-env-a')?.id ?? '';
    const created = await call(emulator(), 'POST', '/api/v1/sessions/provider/direct', {
      key: 'key-env-a',
      body: testProviderSession(profileA),
    });
    const response = await call(emulator(), 'GET', `/api/v1/sessions/${String(created.json.sessionId)}`, {
      key: 'key-env-b',
    });
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({ status: 403, title: 'Forbidden' });
  });

  it('answers a profile of another environment with 403', async () => {
    const profileA = emulator().verificationProfiles.find((p) => p.apiKey === 'key-env-a')?.id ?? '';
    const response = await call(emulator(), 'POST', '/api/v1/sessions/provider/direct', {
      key: 'key-env-b',
      body: testProviderSession(profileA),
    });
    expect(response.status).toBe(403);
  });

  it('keeps redirect URIs per environment', async () => {
    await call(emulator(), 'POST', '/api/valpha/redirect-uris', {
      key: 'key-env-a',
      body: { uri: 'https://a.example/cb' },
    });
    const listB = await call(emulator(), 'GET', '/api/valpha/redirect-uris', { key: 'key-env-b' });
    expect(listB.json.uris).toEqual([]);
  });

  it('answers an identity key on the agent platform, and an agent key on the identity API, with 403', async () => {
    expect((await call(emulator(), 'GET', '/credentials/v1/webhooks', { key: 'key-env-a' })).status).toBe(
      403,
    );
    expect((await call(emulator(), 'GET', '/api/v1/providers', { key: 'agent-acme' })).status).toBe(403);
  });

  it('answers a webhook of another tenant with 403', async () => {
    const created = await call(emulator(), 'POST', '/credentials/v1/webhooks', {
      key: 'agent-acme',
      body: { url: 'https://acme.example/hook', type: 'Notification' },
    });
    const response = await call(
      emulator(),
      'PUT',
      `/credentials/v1/webhooks/${String(created.json.id)}/disable`,
      { key: 'agent-globex' },
    );
    expect(response.status).toBe(403);
  });
});
