import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { type EmulatorControl } from '../../emulator/control-client';
import { createActivities } from '../../workers/activities';
import { SESSION_RUNNING } from '../../verification/domain/polling';
import { localActivityDeps } from '../harness/activity-deps';
import { PollLearning } from '../../verification/activities/poll-learning';
import { MIN_COMPLETIONS } from '../../verification/domain/inspection-curve';
import { openLocalStore } from '../../stores/local/local-store';
import { eventually } from '../harness/eventually';
import { useActivityEmulator } from '../harness/activity-emulator';

// A poll attempt waiting on a slow GetSession ends with the HTTP client's typed TimeoutError
// (retried by Temporal as the next poll), within the attempt's own bound.
describe('the polling activity: timeouts, refusals, learning', () => {
  // A headers timeout shorter than the service's latency below.
  const suite = useActivityEmulator({ seed: 23, headersTimeoutMs: 4_500 });
  const control: EmulatorControl = (method, path, body) => suite().control(method, path, body);

  /** The activities, and a session that runs until told otherwise. */
  const runningSession = async () => {
    const { dataDir, identity } = suite();
    const activities = createActivities(await localActivityDeps(dataDir, identity));
    return { activities, created: { sessionId: await suite().runningSession() } };
  };

  it('fails a poll on a slow GetSession with TimeoutError, retried as the next poll', async () => {
    const { activities, created } = await runningSession();
    await control('PUT', '/faults', { operation: 'GetSession', latencyMs: 6_000, count: 1 });
    const env = new MockActivityEnvironment({ attempt: 2 });
    const error: unknown = await env
      .run((plan: Parameters<typeof activities.pollSession>[0]) => activities.pollSession(plan), {
        sessionId: created.sessionId,
        initialMs: 100,
        maxMs: 100,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).type).toBe('TimeoutError');
    expect((error as ApplicationFailure).nonRetryable).toBe(false);
    await control('DELETE', '/faults');
  }, 20_000);

  it('polls again after the session’s own interval or the service’s Retry-After, whichever is later, when refused (429)', async () => {
    const { activities, created } = await runningSession();
    const refusedPoll = async (retryAfterSeconds: number) => {
      await control('PUT', '/faults', {
        operation: 'GetSession',
        rateLimitRate: 1,
        retryAfterSeconds,
        count: 1,
      });
      // The second attempt is the first poll that calls the service.
      const env = new MockActivityEnvironment({ attempt: 2 });
      const error: unknown = await env
        .run((plan: Parameters<typeof activities.pollSession>[0]) => activities.pollSession(plan), {
          sessionId: created.sessionId,
          initialMs: 2_000,
          maxMs: 2_000,
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApplicationFailure);
      return error as ApplicationFailure;
    };
    const long = await refusedPoll(7);
    expect(long.type).toBe(SESSION_RUNNING);
    expect(long.nextRetryDelay).toBe(7_000);
    // No Retry-After worth waiting: the session's own interval, not an immediate poll.
    const short = await refusedPoll(0);
    expect(short.nextRetryDelay).toBe(2_000);
    await control('DELETE', '/faults');
  });

  it("learns a provider's completion times from consecutive attempts of the poll activity", async () => {
    const { dataDir, identity } = suite();
    const pollLearning = new PollLearning({ store: (await openLocalStore(dataDir)).completionTimes });
    const learning = createActivities(await localActivityDeps(dataDir, identity, { pollLearning }));
    const startedAtMs = Date.now() - 60_000;
    const poll = (attempt: number, sessionId: string) =>
      new MockActivityEnvironment({ attempt, activityId: sessionId })
        .run((plan: Parameters<typeof learning.pollSession>[0]) => learning.pollSession(plan), {
          sessionId,
          initialMs: 100,
          maxMs: 100,
          provider: 'yoti',
          startedAtMs,
        })
        .catch((e: unknown) => e);
    for (let i = 0; i < MIN_COMPLETIONS; i += 1) {
      const { created } = await runningSession();
      expect(await poll(1, created.sessionId)).toBeInstanceOf(ApplicationFailure);
      expect(await poll(2, created.sessionId)).toBeInstanceOf(ApplicationFailure);
      // A poll that learns nothing (a 429, a 503) between two that do: the pair still counts.
      await control('PUT', '/faults', {
        operation: 'GetSession',
        ...(i % 2 === 0 ? { rateLimitRate: 1, retryAfterSeconds: 0 } : { errorRate: 1, errorStatus: 503 }),
        count: 1,
      });
      expect(await poll(3, created.sessionId)).toBeInstanceOf(ApplicationFailure);
      await control('DELETE', '/faults');
      await control('POST', `/sessions/${created.sessionId}/complete`);
      // After the 429 the client's budget holds calls a while: polls that find no turn meanwhile
      // pass the chain on too.
      let attempt = 4;
      let outcome = await poll(attempt, created.sessionId);
      while (outcome instanceof ApplicationFailure && outcome.type === SESSION_RUNNING && attempt < 10)
        outcome = await poll((attempt += 1), created.sessionId);
      expect(outcome).toMatchObject({ polls: attempt - 1 });
    }
    expect(pollLearning.curve('yoti')).toBeDefined();
  });

  /** Activities whose learning syncs each second of a clock the test moves, and what it stored. */
  const learningOnAClock = async () => {
    const { dataDir, identity } = suite();
    const store = (await openLocalStore(dataDir)).completionTimes;
    let clock = 0;
    const pollLearning = new PollLearning({ store, syncEveryMs: 1_000, now: () => clock });
    const learning = createActivities(await localActivityDeps(dataDir, identity, { pollLearning }));
    /**
     * The provider's counts once stored: each look lets a sync come due (one that failed, a store
     * call past its bound on a loaded machine, is tried again at the next); another series'
     * first poll counts nothing.
     */
    const stored = async (provider: string) => {
      await eventually(async () => {
        clock += 1_000;
        pollLearning.running('another', provider, 0, 0);
        return (await store.read()).has(provider) ? true : undefined;
      }, 'the counts stored');
      return (await store.read()).get(provider);
    };
    return { learning, stored };
  };

  it('never pairs a poll with one of an earlier poll activity of the session (a redirect, a new run)', async () => {
    const { learning, stored } = await learningOnAClock();
    const { created } = await runningSession();
    // One start for all polls: an age taken afresh for each poll could come out smaller than the
    // poll's before (the environment's start-up varies), which no learning pairs.
    const startedAtMs = Date.now() - 90_000;
    const poll = (attempt: number, activityId: string, olderByMs = 0) =>
      new MockActivityEnvironment({ attempt, activityId })
        .run((plan: Parameters<typeof learning.pollSession>[0]) => learning.pollSession(plan), {
          sessionId: created.sessionId,
          initialMs: 100,
          maxMs: 100,
          provider: 'onfido',
          startedAtMs: startedAtMs + olderByMs,
        })
        .catch((e: unknown) => e);
    // The first poll activity's first attempt ran here at 60 s; the second activity's second
    // attempt at 90 s, its first having run on another worker: nothing is known of 60 to 90 s.
    await poll(1, 'first', 30_000);
    const secondPolledAt = Date.now();
    await poll(2, 'second');
    await control('POST', `/sessions/${created.sessionId}/complete`);
    // A poll that finds no turn (the client's budget may still hold calls after the 429s above)
    // passes the series on to the next attempt; one of them finds the session done.
    let attempt = 3;
    let outcome = await poll(attempt, 'second');
    while (outcome instanceof ApplicationFailure && attempt < 12)
      outcome = await poll((attempt += 1), 'second');
    expect(outcome).toMatchObject({ state: { done: true } });
    // Only the second activity's own polls count: at most the time they took, never 60 to 90 s.
    const secondPollsMs = Date.now() - secondPolledAt;
    const exposureMs = (await stored('onfido'))?.exposureMs.reduce((a, b) => a + b, 0);
    expect(exposureMs).toBeLessThanOrEqual(secondPollsMs);
  }, 60_000);

  it('counts no completion for a session it finds cancelled (a verification ended it, not its user)', async () => {
    const { learning, stored } = await learningOnAClock();
    const { created } = await runningSession();
    const startedAtMs = Date.now() - 30_000;
    // Each poll a second older than the one before: the time between two polls is never nothing.
    const poll = (attempt: number) =>
      new MockActivityEnvironment({ attempt, activityId: 'cancelled' })
        .run((plan: Parameters<typeof learning.pollSession>[0]) => learning.pollSession(plan), {
          sessionId: created.sessionId,
          initialMs: 100,
          maxMs: 100,
          provider: 'idnow',
          startedAtMs: startedAtMs - attempt * 1_000,
        })
        .catch((e: unknown) => e);
    expect(await poll(1)).toBeInstanceOf(ApplicationFailure);
    // Polls until one finds the session running (one may find no turn under the client's budget
    // on a loaded machine: it passes the series on).
    let attempt = 2;
    let running = await poll(attempt);
    while (running instanceof ApplicationFailure && running.message !== 'session running' && attempt < 12)
      running = await poll((attempt += 1));
    expect(running).toMatchObject({ message: 'session running' });
    // Cancelled by its verification (the deadline, the caller) while the poll had not heard.
    await suite().identity.sessions.cancel(created.sessionId);
    let outcome = await poll((attempt += 1));
    while (outcome instanceof ApplicationFailure && attempt < 12) outcome = await poll((attempt += 1));
    expect(outcome).toMatchObject({ state: { status: 'cancelled' } });
    const counts = await stored('idnow');
    // The time it saw the session running counts; no completion does.
    expect(counts?.exposureMs.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(counts?.events.reduce((a, b) => a + b, 0)).toBe(0);
  }, 60_000);
});
