import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { request } from 'undici';
import { createActivities } from '../../workers/activities';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { localActivityDeps } from '../harness/activity-deps';

// A CancelSession answered 200 with its session still running (a service that takes the cancel
// and carries it out later, or not at all) has not ended the session: the activities that end a
// session fail and are retried, and never count it as ended.
describe('a cancel answered with its session still running', () => {
  let emulator: Emulator;
  let identity: IdentityClient;
  let dataDir: string;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 31 });
    identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-cancel-'));
  });
  afterAll(async () => {
    await identity.close();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const control = async (method: 'PUT' | 'DELETE', path: string, body?: unknown) => {
    const response = await request(`${emulator.controlUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await response.body.dump();
  };

  const runningSession = async () => {
    await control('PUT', '/script', { outcome: 'manual' });
    const created = await identity.sessions.createDirectProviderSession({
      verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
    });
    // The next CancelSession's answer says the session still runs.
    await control('PUT', '/faults', {
      operation: 'CancelSession',
      mergeBody: { session: { done: false, state: 'InProgress' } },
      count: 1,
    });
    return created.sessionId;
  };

  afterEach(async () => {
    await control('DELETE', '/faults');
  });

  it.each([
    ['cancelSession', (a: ReturnType<typeof createActivities>, id: string) => a.cancelSession(id)],
    ['endSessionIfLive', (a: ReturnType<typeof createActivities>, id: string) => a.endSessionIfLive(id)],
  ] as const)('%s fails retryably, then ends the session on the next attempt', async (_, call) => {
    const activities = createActivities(await localActivityDeps(dataDir, identity));
    const sessionId = await runningSession();
    const attempt = (n: number) =>
      new MockActivityEnvironment({ attempt: n })
        .run(() => call(activities, sessionId))
        .catch((e: unknown) => e);
    const first = await attempt(1);
    expect(first).toBeInstanceOf(Error);
    expect((first as Error).name).toBe('CancelNotAppliedError');
    expect((first as { nonRetryable?: boolean }).nonRetryable).toBeUndefined();
    // Retried: the service has carried the cancel out by now, and says so.
    expect(await attempt(2)).toMatchObject(
      _ === 'cancelSession' ? { done: true, status: 'cancelled' } : { cancelled: true },
    );
  });
});
