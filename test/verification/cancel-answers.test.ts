import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../workers/activities';
import { localActivityDeps } from '../harness/activity-deps';
import { useActivityEmulator } from '../harness/activity-emulator';

// A CancelSession answered 200 with its session still running (a service that takes the cancel
// and carries it out later, or not at all) has not ended the session: the activities that end a
// session fail and are retried, and never count it as ended.
describe('a cancel answered with its session still running', () => {
  const suite = useActivityEmulator({ seed: 31 });

  const runningSession = async () => {
    const sessionId = await suite().runningSession();
    // The next CancelSession's answer says the session still runs.
    await suite().control('PUT', '/faults', {
      operation: 'CancelSession',
      mergeBody: { session: { done: false, state: 'InProgress' } },
      count: 1,
    });
    return sessionId;
  };

  afterEach(async () => {
    await suite().control('DELETE', '/faults');
  });

  it.each([
    ['cancelSession', (a: ReturnType<typeof createActivities>, id: string) => a.cancelSession(id)],
    ['endSessionIfLive', (a: ReturnType<typeof createActivities>, id: string) => a.endSessionIfLive(id)],
  ] as const)('%s fails retryably, then ends the session on the next attempt', async (_, call) => {
    const activities = createActivities(await localActivityDeps(suite().dataDir, suite().identity));
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
