import { type Emulator, startEmulator } from '../../emulator/emulator';
import { call, testProviderSession } from './wire';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('emulator session lifecycle', () => {
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await startEmulator({ seed: 9 });
  });
  afterEach(async () => {
    await emulator.close();
  });

  const profileId = () => emulator.verificationProfiles[0]?.id ?? '';
  const control = (path: string, body?: unknown) =>
    call(emulator, 'POST', `/_emulator${path}`, { key: null, body: body ?? {} });
  const getSession = async (id: string) =>
    (await call(emulator, 'GET', `/api/v1/sessions/${id}`)).json.session;

  async function create(body: unknown = testProviderSession(profileId())) {
    const response = await call(emulator, 'POST', '/api/v1/sessions/provider/direct', { body });
    expect(response.status).toBe(200);
    return {
      id: String(response.json.sessionId),
      key: String(response.json.resultCollection.resultsAccessKey),
      json: response.json,
    };
  }

  it('the test provider succeeds with identityCode 123456 once the simulated user is done', async () => {
    const { id } = await create();
    expect(await getSession(id)).toMatchObject({ done: false, success: false, errorCode: null });
    emulator.store.clock.advance(2_000);
    expect(await getSession(id)).toMatchObject({ done: true, success: true, errorCode: null });
  });

  it('the test provider fails with any other identityCode', async () => {
    const { id } = await create(testProviderSession(profileId(), '000000'));
    emulator.store.clock.advance(2_000);
    expect(await getSession(id)).toMatchObject({ done: true, success: false, errorCode: 'Other' });
  });

  it.each([
    ['/complete', {}, { success: true, errorCode: null }],
    ['/fail', { errorCode: 'Inauthentic' }, { success: false, errorCode: 'Inauthentic' }],
    ['/abandon', {}, { success: false, errorCode: 'UserAbandoned' }],
  ])('the control API %s ends a session at once', async (action, body, expected) => {
    const { id } = await create();
    expect((await control(`/sessions/${id}${action}`, body)).status).toBe(200);
    expect(await getSession(id)).toMatchObject({ done: true, ...expected });
  });

  it('delay postpones the simulated user', async () => {
    const { id } = await create();
    await control(`/sessions/${id}/delay`, { ms: 60_000 });
    emulator.store.clock.advance(30_000);
    expect((await getSession(id)).done).toBe(false);
    emulator.store.clock.advance(30_000);
    expect((await getSession(id)).done).toBe(true);
  });

  it('a scripted manual outcome waits for the control API', async () => {
    await call(emulator, 'PUT', '/_emulator/script', { key: null, body: { outcome: 'manual' } });
    const { id } = await create();
    emulator.store.clock.advance(HOUR);
    expect((await getSession(id)).done).toBe(false);
  });

  it('random user latency is reproducible for a seed', async () => {
    const plan = async (e: Emulator) => {
      await call(e, 'PUT', '/_emulator/script', {
        key: null,
        body: { latencyMinMs: 1_000, latencyMaxMs: 60_000 },
      });
      const body = testProviderSession(e.verificationProfiles[0]?.id ?? '');
      const created = await call(e, 'POST', '/api/v1/sessions/provider/direct', { body });
      const view = await call(e, 'GET', `/_emulator/sessions/${String(created.json.sessionId)}`, {
        key: null,
      });
      return Date.parse(String(view.json.userCompletesAt)) - e.store.clock.now();
    };
    const twin = await startEmulator({ seed: 9 });
    try {
      const [a, b] = [await plan(emulator), await plan(twin)];
      expect(Math.abs(a - b)).toBeLessThan(1_000);
      expect(a).toBeGreaterThan(0);
    } finally {
      await twin.close();
    }
  });

  it('cancel ends a pending session as Canceled; cancelling a finished one is an error', async () => {
    const { id } = await create();
    const cancelled = await call(emulator, 'POST', `/api/v1/sessions/${id}/cancel`);
    expect(cancelled.json.session).toMatchObject({ done: true, success: false, errorCode: 'Canceled' });
    const again = await call(emulator, 'POST', `/api/v1/sessions/${id}/cancel`);
    expect(again.status).toBe(400);
  });

  it('a session expires after the profile’s session expiration', async () => {
    await call(emulator, 'PUT', '/_emulator/script', { key: null, body: { outcome: 'manual' } });
    const { id } = await create();
    emulator.store.clock.advance(2 * HOUR);
    expect(await getSession(id)).toMatchObject({ done: true, success: false, errorCode: 'Expired' });
  });

  it.each([
    [undefined, false],
    [false, true],
  ])(
    'redactionSticks %s: a session redacted while it ran gathers data when its user finishes: %s',
    async (sticks, gathers) => {
      const script = { outcome: 'manual', ...(sticks === undefined ? {} : { redactionSticks: sticks }) };
      expect((await call(emulator, 'PUT', '/_emulator/script', { key: null, body: script })).status).toBe(
        200,
      );
      const { id } = await create();
      expect((await call(emulator, 'POST', `/api/v1/sessions/${id}/redact`)).status).toBeLessThan(300);
      await control(`/sessions/${id}/complete`);
      expect(emulator.store.sessions.get(id)?.identity !== undefined).toBe(gathers);
    },
  );

  it('refuses a redactionSticks that is not true or false', async () => {
    const answer = await call(emulator, 'PUT', '/_emulator/script', {
      key: null,
      body: { redactionSticks: 'no' },
    });
    expect(answer.status).toBe(400);
  });

  it('redaction removes identity data and attachments at once and is observable', async () => {
    const { id, key } = await create();
    emulator.store.clock.advance(2_000);
    const before = await call(emulator, 'POST', `/api/v1/sessions/${id}/results`, {
      body: { resultsAccessKey: key },
    });
    const attachmentId = String(before.json.identityData.attachments[0].id);
    expect((await call(emulator, 'POST', `/api/v1/sessions/${id}/redact`)).status).toBe(200);
    const after = await call(emulator, 'POST', `/api/v1/sessions/${id}/results`, {
      body: { resultsAccessKey: key },
    });
    expect(after.json.identityData).toBeNull();
    const attachment = await call(
      emulator,
      'POST',
      `/api/v1/sessions/${id}/attachments/${attachmentId}/get`,
      { body: { resultsAccessKey: key } },
    );
    expect(attachment.status).toBe(404);
    const view = await call(emulator, 'GET', `/_emulator/sessions/${id}`, { key: null });
    expect(view.json).toMatchObject({
      redacted: { by: 'request' },
      hasIdentityData: false,
      attachmentCount: 0,
    });
    expect((await call(emulator, 'POST', `/api/v1/sessions/${id}/redact`)).status).toBe(200);
  });

  it('a redaction of a session still running sticks: it never produces identity data later', async () => {
    const { id, key } = await create();
    expect((await call(emulator, 'POST', `/api/v1/sessions/${id}/redact`)).status).toBe(200);
    emulator.store.clock.advance(2_000);
    expect(await getSession(id)).toMatchObject({ done: true });
    const after = await call(emulator, 'POST', `/api/v1/sessions/${id}/results`, {
      body: { resultsAccessKey: key },
    });
    expect(after.json.identityData).toBeNull();
    const view = await call(emulator, 'GET', `/_emulator/sessions/${id}`, { key: null });
    expect(view.json).toMatchObject({
      redacted: { by: 'request' },
      hasIdentityData: false,
      attachmentCount: 0,
    });
  });

  it('personal data is removed automatically once the redaction period has passed', async () => {
    const { id, key } = await create();
    emulator.store.clock.advance(2_000 + 30 * DAY);
    const after = await call(emulator, 'POST', `/api/v1/sessions/${id}/results`, {
      body: { resultsAccessKey: key },
    });
    expect(after.json.identityData).toBeNull();
    const view = await call(emulator, 'GET', `/_emulator/sessions/${id}`, { key: null });
    expect(view.json.redacted.by).toBe('retention');
  });

  it('results carry realistic identity data and real PNG attachments of the declared size', async () => {
    const { id, key } = await create();
    emulator.store.clock.advance(2_000);
    const results = await call(emulator, 'POST', `/api/v1/sessions/${id}/results`, {
      body: { resultsAccessKey: key },
    });
    const data = results.json.identityData;
    expect(data.person).toMatchObject({ givenName: 'Ada', familyName: 'Lovelace' });
    expect(data.document.type).toBe('DriversLicense');
    const [info] = data.attachments;
    const attachment = await call(
      emulator,
      'POST',
      `/api/v1/sessions/${id}/attachments/${String(info.id)}/get`,
      { body: { resultsAccessKey: key } },
    );
    const bytes = Buffer.from(String(attachment.json.content), 'base64');
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.length).toBe(info.sizeBytes);
    expect(attachment.json.contentType).toBe(info.contentType);
  });

  it('identity data is absent until the session succeeded', async () => {
    const { id, key } = await create();
    const results = await call(emulator, 'POST', `/api/v1/sessions/${id}/results`, {
      body: { resultsAccessKey: key },
    });
    expect(results.json.identityData).toBeNull();
  });

  it('RefreshStepContent returns new content with a later expiry; a non-refreshable step is an error', async () => {
    await call(emulator, 'PUT', '/_emulator/script', { key: null, body: { outcome: 'manual' } });
    const mobile = await create({
      verificationProfileId: profileId(),
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
    });
    const first = mobile.json.nextStep;
    expect(first.refresh.timeToLiveSeconds).toBe(300);
    emulator.store.clock.advance(250_000);
    const refreshed = await call(emulator, 'POST', `/api/v1/sessions/${mobile.id}/step/refresh`, {
      body: { resultsAccessKey: mobile.key },
    });
    expect(refreshed.json.nextStep.content).not.toBe(first.content);
    expect(Date.parse(refreshed.json.nextStep.refresh.expiresAt)).toBeGreaterThan(
      Date.parse(first.refresh.expiresAt),
    );
    const plain = await create();
    const refusal = await call(emulator, 'POST', `/api/v1/sessions/${plain.id}/step/refresh`, {
      body: { resultsAccessKey: plain.key },
    });
    expect(refusal.status).toBe(400);
  });

  it('a native challenge completes on submission; an invalid response fails the security validation', async () => {
    const body = {
      verificationProfileId: profileId(),
      provider: 'mdl-digital-credentials',
      capabilities: ['NativeChallenge'],
    };
    const mdl = await create(body);
    expect(mdl.json.nextStep.method).toBe('PerformNativeChallenge');
    emulator.store.clock.advance(HOUR);
    expect((await getSession(mdl.id)).done).toBe(false);
    const bad = await create(body);
    const submitted = await call(emulator, 'POST', `/api/v1/sessions/${bad.id}/native-challenge/submit`, {
      body: { resultsAccessKey: bad.key, responseToken: 'invalid-signature' },
    });
    expect(submitted.json.session).toMatchObject({
      done: true,
      success: false,
      errorCode: 'SecurityValidationFailed',
    });
  });

  it('ListSessions orders by Created, Updated and State in both directions with total and more', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push((await create()).id);
      emulator.store.clock.advance(1_000);
    }
    const [first, second, third] = ids as [string, string, string];
    await control(`/sessions/${first}/complete`); // updated last, success
    await control(`/sessions/${second}/fail`, { errorCode: 'Other' });
    const list = async (query: string) =>
      (await call(emulator, 'GET', `/api/v1/verification-profiles/${profileId()}/sessions?${query}`)).json;
    expect(
      (await list('OrderBy=Created&OrderDirection=Ascending')).sessions.map((s: { id: string }) => s.id),
    ).toEqual(ids);
    expect(
      (await list('OrderBy=Created&OrderDirection=Descending')).sessions.map((s: { id: string }) => s.id),
    ).toEqual([...ids].reverse());
    expect((await list('OrderBy=Updated&OrderDirection=Descending')).sessions[0].id).toBe(second);
    expect(
      (await list('OrderBy=State&OrderDirection=Ascending')).sessions.map((s: { id: string }) => s.id),
    ).toEqual([third, first, second]);
    const page = await list('OrderBy=Created&OrderDirection=Ascending&PageSize=2&Page=2');
    expect(page).toMatchObject({ total: 3, more: false });
    expect(page.sessions.map((s: { id: string }) => s.id)).toEqual([third]);
    expect(await list('PageSize=2&Page=1')).toMatchObject({ total: 3, more: true });
  });

  it('counts requests per operation and per session', async () => {
    const { id } = await create();
    await getSession(id);
    await getSession(id);
    const counters = (await call(emulator, 'GET', '/_emulator/counters', { key: null })).json;
    expect(counters.byOperation).toMatchObject({ CreateDirectProviderSession: 1, GetSession: 2 });
    expect(counters.bySession[id]).toEqual({ GetSession: 2 });
    expect(counters.seenDone).not.toHaveProperty(id);
  });

  it('keeps when a GetSession first found a session done', async () => {
    const { id } = await create();
    await control(`/sessions/${id}/complete`);
    const before = Date.now();
    await getSession(id);
    const first = (await call(emulator, 'GET', '/_emulator/counters', { key: null })).json.seenDone[id];
    await getSession(id);
    const counters = (await call(emulator, 'GET', '/_emulator/counters', { key: null })).json;
    expect(first).toBeGreaterThanOrEqual(before);
    expect(counters.seenDone[id]).toBe(first);
  });
});
