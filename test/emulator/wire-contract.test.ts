import { IdentityContract } from './openapi-validator';
import { call, testProviderSession, useEmulator } from './wire';

// Every operation, on success and error paths, answers what the official OpenAPI document says.
describe('emulator wire format against the official OpenAPI document', () => {
  const emulator = useEmulator();
  const contract = new IdentityContract();
  const zeroId = '00000000-0000-0000-0000-000000000000';

  async function expectConforms(
    method: string,
    template: string,
    path: string,
    options: Parameters<typeof call>[3] = {},
  ) {
    const response = await call(emulator(), method, path, options);
    expect(contract.check(method, template, response)).toEqual([]);
    return response;
  }

  async function createdSession(identityCode = '123456') {
    const profileId = emulator().verificationProfiles[0]?.id ?? '';
    const created = await expectConforms(
      'POST',
      '/api/v1/sessions/provider/direct',
      '/api/v1/sessions/provider/direct',
      {
        body: testProviderSession(profileId, identityCode),
      },
    );
    expect(created.status).toBe(200);
    return {
      sessionId: String(created.json.sessionId),
      key: String(created.json.resultCollection.resultsAccessKey),
      profileId,
    };
  }

  it('the contract itself rejects a wrong shape, status or content type', () => {
    const template = '/api/v1/sessions/{sessionId}';
    const json = 'application/json; charset=utf-8';
    expect(
      contract.check('GET', template, { status: 200, contentType: json, body: { session: { id: 'x' } } }),
    ).not.toEqual([]);
    expect(
      contract.check('GET', template, { status: 200, contentType: 'text/html', body: '<p>' }),
    ).not.toEqual([]);
    expect(contract.check('GET', template, { status: 404, contentType: json, body: {} })).not.toEqual([]);
    expect(contract.check('GET', template, { status: 201, contentType: json, body: {} })).not.toEqual([]);
  });

  it('ListProviders and GetProvider', async () => {
    const list = await expectConforms('GET', '/api/v1/providers', '/api/v1/providers?licensed=false');
    expect(list.json.providers.map((p: { id: string }) => p.id)).toEqual(['clear']);
    const one = await expectConforms('GET', '/api/v1/providers/{providerId}', '/api/v1/providers/yoti');
    expect(one.json.provider.id).toBe('yoti');
    await expectConforms('GET', '/api/v1/providers/{providerId}', '/api/v1/providers/nope');
  });

  it('redirect URIs: Add, List, Delete and their errors', async () => {
    const added = await expectConforms('POST', '/api/valpha/redirect-uris', '/api/valpha/redirect-uris', {
      body: { uri: 'https://app.example/*' },
    });
    expect(added.status).toBe(201);
    const list = await expectConforms(
      'GET',
      '/api/valpha/redirect-uris',
      '/api/valpha/redirect-uris?pageSize=100',
    );
    expect(list.json.uris).toContainEqual({ id: added.json.id, uri: 'https://app.example/*' });
    const deleted = await expectConforms(
      'DELETE',
      '/api/valpha/redirect-uris/{id}',
      `/api/valpha/redirect-uris/${String(added.json.id)}`,
    );
    expect(deleted.status).toBe(204);
    await expectConforms(
      'DELETE',
      '/api/valpha/redirect-uris/{id}',
      `/api/valpha/redirect-uris/${String(added.json.id)}`,
    );
    await expectConforms('POST', '/api/valpha/redirect-uris', '/api/valpha/redirect-uris', {
      body: { uri: 'relative/path' },
    });
  });

  it('CreateDirectProviderSession, GetSession, ListSessions', async () => {
    const { sessionId, profileId } = await createdSession();
    const got = await expectConforms('GET', '/api/v1/sessions/{sessionId}', `/api/v1/sessions/${sessionId}`);
    expect(got.json.session.id).toBe(sessionId);
    const listed = await expectConforms(
      'GET',
      '/api/v1/verification-profiles/{verificationProfileId}/sessions',
      `/api/v1/verification-profiles/${profileId}/sessions?OrderBy=State&OrderDirection=Ascending&PageSize=5&Page=1`,
    );
    expect(listed.json.total).toBeGreaterThanOrEqual(1);
    await expectConforms('GET', '/api/v1/sessions/{sessionId}', `/api/v1/sessions/${zeroId}`);
    await expectConforms('POST', '/api/v1/sessions/provider/direct', '/api/v1/sessions/provider/direct', {
      body: { provider: 'x' },
    });
  });

  it('GetSessionResult and GetAttachment after success, and with a wrong key', async () => {
    const { sessionId, key } = await createdSession();
    emulator().store.clock.advance(10_000);
    const results = await expectConforms(
      'POST',
      '/api/v1/sessions/{sessionId}/results',
      `/api/v1/sessions/${sessionId}/results`,
      {
        body: { resultsAccessKey: key },
      },
    );
    const attachmentId = String(results.json.identityData.attachments[0].id);
    const template = '/api/v1/sessions/{sessionId}/attachments/{attachmentId}/get';
    const attachment = await expectConforms(
      'POST',
      template,
      `/api/v1/sessions/${sessionId}/attachments/${attachmentId}/get`,
      {
        body: { resultsAccessKey: key },
      },
    );
    expect(attachment.json.contentType).toBe('image/png');
    const forbidden = await expectConforms(
      'POST',
      '/api/v1/sessions/{sessionId}/results',
      `/api/v1/sessions/${sessionId}/results`,
      {
        body: { resultsAccessKey: 'wrong' },
      },
    );
    expect(forbidden.status).toBe(403);
  });

  it('CancelSession, RedactSession and cancelling a finished session', async () => {
    const { sessionId } = await createdSession();
    const cancelled = await expectConforms(
      'POST',
      '/api/v1/sessions/{sessionId}/cancel',
      `/api/v1/sessions/${sessionId}/cancel`,
    );
    expect(cancelled.json.session).toMatchObject({ done: true, success: false, errorCode: 'Canceled' });
    const again = await expectConforms(
      'POST',
      '/api/v1/sessions/{sessionId}/cancel',
      `/api/v1/sessions/${sessionId}/cancel`,
    );
    expect(again.status).toBe(400);
    const redacted = await expectConforms(
      'POST',
      '/api/v1/sessions/{sessionId}/redact',
      `/api/v1/sessions/${sessionId}/redact`,
    );
    expect(redacted.status).toBe(200);
  });

  it('RefreshStepContent and SubmitNativeChallengeResponse', async () => {
    const profileId = emulator().verificationProfiles[0]?.id ?? '';
    const mobile = await call(emulator(), 'POST', '/api/v1/sessions/provider/direct', {
      body: {
        verificationProfileId: profileId,
        provider: 'yoti',
        capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
      },
    });
    const mobileId = String(mobile.json.sessionId);
    const refreshed = await expectConforms(
      'POST',
      '/api/v1/sessions/{sessionId}/step/refresh',
      `/api/v1/sessions/${mobileId}/step/refresh`,
      {
        body: { resultsAccessKey: mobile.json.resultCollection.resultsAccessKey },
      },
    );
    expect(refreshed.json.nextStep.method).toBe('DeeplinkToMobile');
    const mdl = await call(emulator(), 'POST', '/api/v1/sessions/provider/direct', {
      body: {
        verificationProfileId: profileId,
        provider: 'mdl-digital-credentials',
        capabilities: ['NativeChallenge'],
      },
    });
    const template = '/api/v1/sessions/{sessionId}/native-challenge/submit';
    const submitted = await expectConforms(
      'POST',
      template,
      `/api/v1/sessions/${String(mdl.json.sessionId)}/native-challenge/submit`,
      {
        body: {
          resultsAccessKey: mdl.json.resultCollection.resultsAccessKey,
          responseToken: 'device-response',
        },
      },
    );
    expect(submitted.json.session).toMatchObject({ done: true, success: true });
    await expectConforms('POST', template, `/api/v1/sessions/${mobileId}/native-challenge/submit`, {
      body: { resultsAccessKey: mobile.json.resultCollection.resultsAccessKey, responseToken: 'x' },
    });
  });

  it.each([
    [
      'GET',
      '/api/v1/verification-profiles/{verificationProfileId}/sessions',
      '/api/v1/verification-profiles/bad/sessions',
      undefined,
    ],
    ['GET', '/api/v1/sessions/{sessionId}', '/api/v1/sessions/bad', undefined],
    [
      'POST',
      '/api/v1/sessions/{sessionId}/results',
      '/api/v1/sessions/bad/results',
      { resultsAccessKey: 'k' },
    ],
    [
      'POST',
      '/api/v1/sessions/{sessionId}/attachments/{attachmentId}/get',
      `/api/v1/sessions/${zeroId}/attachments/bad/get`,
      { resultsAccessKey: 'k' },
    ],
    ['POST', '/api/v1/sessions/{sessionId}/cancel', '/api/v1/sessions/bad/cancel', undefined],
    ['POST', '/api/v1/sessions/{sessionId}/redact', '/api/v1/sessions/bad/redact', undefined],
    [
      'POST',
      '/api/v1/sessions/{sessionId}/step/refresh',
      '/api/v1/sessions/bad/step/refresh',
      { resultsAccessKey: 'k' },
    ],
    [
      'POST',
      '/api/v1/sessions/{sessionId}/native-challenge/submit',
      '/api/v1/sessions/bad/native-challenge/submit',
      { resultsAccessKey: 'k', responseToken: 't' },
    ],
    ['GET', '/api/v1/providers', '/api/v1/providers?licensed=perhaps', undefined],
    ['GET', '/api/valpha/redirect-uris', '/api/valpha/redirect-uris?page=0', undefined],
    ['DELETE', '/api/valpha/redirect-uris/{id}', '/api/valpha/redirect-uris/bad', undefined],
  ])('%s %s answers a 400 in the documented problem shape', async (method, template, path, body) => {
    const response = await expectConforms(method, template, path, body === undefined ? {} : { body });
    expect(response.status).toBe(400);
  });

  it('answers every operation with a 500 in the documented shape when the service fails', async () => {
    await call(emulator(), 'PUT', '/_emulator/faults', { key: null, body: { errorRate: 1 } });
    try {
      const failing = await expectConforms(
        'GET',
        '/api/v1/sessions/{sessionId}',
        `/api/v1/sessions/${zeroId}`,
      );
      expect(failing.status).toBe(500);
      await expectConforms('POST', '/api/v1/sessions/provider/direct', '/api/v1/sessions/provider/direct', {
        body: {},
      });
    } finally {
      await call(emulator(), 'DELETE', '/_emulator/faults', { key: null });
    }
  });

  it('401 and 403 are problem details with a traceId', async () => {
    const unauthorized = await expectConforms('GET', '/api/v1/providers', '/api/v1/providers', { key: null });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.json.traceId).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const agentKey = Object.values(emulator().agentKeys)[0] ?? '';
    const forbidden = await expectConforms('GET', '/api/v1/providers', '/api/v1/providers', {
      key: agentKey,
    });
    expect(forbidden.status).toBe(403);
  });
});
