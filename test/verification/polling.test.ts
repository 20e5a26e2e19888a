import { temporal } from '@temporalio/proto';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { type HeldPollDetails } from '../../verification/activities/attempt-server';
import { type PollingPlan } from '../../verification/activities/polling-activities';
import { POLL_PRIORITY_KEY, SESSION_RUNNING } from '../../verification/domain/polling';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

const { EventType, PendingActivityState } = temporal.api.enums.v1;
const BUDGET = 6;

/** The event ids of the `pollSession` activities scheduled in a history. */
function pollScheduledIds(events: temporal.api.history.v1.IHistoryEvent[]): Set<number> {
  return new Set(
    events
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'pollSession')
      .map((event) => Number(event.eventId)),
  );
}

/** The attempt of each started `pollSession` that ended (completed, failed or cancelled) in a history. */
function pollAttempts(events: temporal.api.history.v1.IHistoryEvent[]): number[] {
  const polls = pollScheduledIds(events);
  return events
    .filter((event) => polls.has(Number(event.activityTaskStartedEventAttributes?.scheduledEventId ?? -1)))
    .map((event) => event.activityTaskStartedEventAttributes?.attempt ?? 0);
}

// Polling as held, retried activities under the worker's call budget: open verifications hold no
// activity slot between polls, one attempt makes many polls, their histories do not grow with
// the polls, a redirect is checked at once whatever the poll interval, a stopping worker hands its
// polls back, and the service never sees more calls per second than the budget.
describe('polling open verifications', () => {
  // Two activity slots for many waiting verifications: a poll held in a slot would starve the rest.
  const stack = useVerificationStack(
    {},
    { tuning: { maxConcurrentActivityTaskExecutions: 2 }, apiCallsPerSecond: BUDGET },
  );
  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
  });

  const callsOf = async (sessionId: string, operation = 'GetSession') => {
    const counters = await stack().control('GET', '/counters');
    const bySession = counters.bySession as Record<string, Record<string, number>>;
    return bySession[sessionId]?.[operation] ?? 0;
  };

  /** Starts `count` verifications and waits until each session was polled twice. */
  const startAndPollTwice = async (count: number, polling: { initialMs: number; maxMs: number }) => {
    const started = await Promise.all(
      Array.from({ length: count }, () => stack().idv.startVerification(stack().request({ polling }))),
    );
    const sessions = started.map(({ nextStep }) => nextStep.sessionId);
    await eventually(
      async () =>
        (await Promise.all(sessions.map((id) => callsOf(id)))).every((n) => n >= 2) ? true : undefined,
      'every session polled twice',
    );
    return { started, sessions };
  };

  it('polls every open verification though they outnumber the activity slots', async () => {
    const { started, sessions } = await startAndPollTwice(6, { initialMs: 200, maxMs: 500 });
    await Promise.all(sessions.map((id) => stack().control('POST', `/sessions/${id}/complete`)));
    const outcomes = await Promise.all(started.map(({ handle }) => handle.result()));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(6).fill('succeeded'));
  });

  it('writes one poll activity to the history however many polls it takes', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ polling: { initialMs: 100, maxMs: 100 } }),
    );
    await eventually(
      async () => ((await callsOf(nextStep.sessionId)) >= 15 ? true : undefined),
      '15 polls of the session',
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    expect((await handle.result()).status).toBe('succeeded');
    const { events } = await handle.workflow.fetchHistory();
    const polls = (events ?? []).filter(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        event.activityTaskScheduledEventAttributes?.activityType?.name === 'pollSession',
    );
    expect(polls).toHaveLength(1);
    // Behind every other activity of the task queue (a redirect check, a results fetch, a create).
    expect(polls[0]?.activityTaskScheduledEventAttributes?.priority?.priorityKey).toBe(POLL_PRIORITY_KEY);
    // Held by the worker between its polls: one attempt made them all.
    expect(pollAttempts(events ?? [])).toEqual([1]);
  });

  it('hands its held polls back when the worker stops, and another worker goes on with them', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ polling: { initialMs: 100, maxMs: 100 } }),
    );
    const pending = async () => {
      const { raw } = await handle.workflow.describe();
      return raw.pendingActivities?.find((activity) => activity.activityType?.name === 'pollSession');
    };
    await eventually(
      async () => ((await callsOf(nextStep.sessionId)) >= 3 ? true : undefined),
      'three polls',
    );
    expect((await pending())?.attempt).toBe(1);
    await stack().stopWorker();
    // Handed back with the next poll's delay: the server schedules the next attempt, not at the
    // attempt's 10-minute timeout.
    const handedBack = await pending();
    expect(handedBack?.attempt).toBe(2);
    expect(handedBack?.lastFailure?.applicationFailureInfo?.type).toBe(SESSION_RUNNING);
    // With the number of its last poll, for the next attempt's polls to go on from.
    const [details] = await decodeArrayFromPayloads(
      stack().client.options.loadedDataConverter,
      handedBack?.heartbeatDetails?.payloads,
    );
    expect(details).toMatchObject({ attempt: 1 });
    expect((details as HeldPollDetails).polls).toBeGreaterThanOrEqual(3);
    const before = await callsOf(nextStep.sessionId);
    await stack().startWorker();
    await eventually(
      async () => ((await callsOf(nextStep.sessionId)) > before ? true : undefined),
      'a poll by the next worker',
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    expect((await handle.result()).status).toBe('succeeded');
    expect(pollAttempts((await handle.workflow.fetchHistory()).events ?? [])).toEqual([2]);
  });

  it('waits a long interval on the worker, and checks a redirect at once', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ polling: { initialMs: 60_000, maxMs: 60_000 } }),
    );
    // The first attempt is held by the worker for its first interval (no slot: see above).
    await eventually(async () => {
      const { raw } = await handle.workflow.describe();
      const poll = raw.pendingActivities?.find((activity) => activity.activityType?.name === 'pollSession');
      return poll?.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED ? poll : undefined;
    }, 'the poll held by the worker');
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    const returned = Date.now();
    await handle.redirectCaptured();
    expect((await handle.result()).status).toBe('succeeded');
    expect(Date.now() - returned).toBeLessThan(10_000);
    // The first attempt only armed the interval: the redirect check was the one GetSession.
    expect(await callsOf(nextStep.sessionId)).toBe(1);
  });

  it('gives its polls the provider and the start to learn and place by, until the user came back', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ polling: { initialMs: 100, maxMs: 100 } }),
    );
    await eventually(async () => ((await callsOf(nextStep.sessionId)) >= 2 ? true : undefined), 'two polls');
    await handle.redirectCaptured();
    await eventually(
      async () => ((await callsOf(nextStep.sessionId)) >= 5 ? true : undefined),
      'polls after the return',
    );
    // The attempt the redirect cancelled is asked as the poll after the return comes to this
    // worker, and says it is cancelled: it polls no more beside the new one.
    await eventually(async () => {
      const { events } = await handle.workflow.fetchHistory();
      return events?.some((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED)
        ? true
        : undefined;
    }, 'the first poll reported cancelled');
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    expect((await handle.result()).status).toBe('succeeded');
    const { events } = await handle.workflow.fetchHistory();
    const plans = await Promise.all(
      (events ?? [])
        .map((event) => event.activityTaskScheduledEventAttributes)
        .filter((scheduled) => scheduled?.activityType?.name === 'pollSession')
        .map(async (scheduled) => {
          const [plan] = await decodeArrayFromPayloads(
            stack().client.options.loadedDataConverter,
            scheduled?.input?.payloads,
          );
          return plan as PollingPlan;
        }),
    );
    const { startedAt } = await handle.progress();
    const placed = { provider: stack().request().provider, startedAtMs: expect.any(Number) as number };
    expect(plans).toEqual([
      expect.objectContaining({ ...placed, sessionId: nextStep.sessionId }),
      expect.objectContaining({ ...placed, afterReturn: true }),
    ]);
    // The workflow's time of its first task (a replay may read that task's time a little apart).
    for (const plan of plans)
      expect(Math.abs((plan.startedAtMs ?? 0) - Date.parse(startedAt))).toBeLessThan(1_000);
    expect(plans[0]).not.toHaveProperty('afterReturn');
    // The held attempt the redirect cancelled polled on, but asked before it acted on the outcome:
    // only the poll started after the return completed.
    const completedPolls = (events ?? []).filter(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED &&
        pollScheduledIds(events ?? []).has(
          Number(event.activityTaskCompletedEventAttributes?.scheduledEventId),
        ),
    );
    expect(completedPolls).toHaveLength(1);
  });

  it('never sends more calls in a second than the worker’s budget, and spreads the polls', async () => {
    await stack().control('DELETE', '/counters');
    const { started, sessions } = await startAndPollTwice(12, { initialMs: 100, maxMs: 100 });
    expect(stack().identity.budget?.stats().polledSessions).toBeGreaterThanOrEqual(12);
    await Promise.all(sessions.map((id) => stack().control('POST', `/sessions/${id}/complete`)));
    await Promise.all(started.map(({ handle }) => handle.result()));
    const counters = await stack().control('GET', '/counters');
    expect(counters.busiestSecond).toBeGreaterThan(BUDGET / 2);
    expect(counters.busiestSecond).toBeLessThanOrEqual(BUDGET);
  });
});

// The budget spreads polls over the sessions still polled: one that ended through a redirect
// check or a cancel no longer counts (it stretched the others' polls for up to ten minutes).
describe('the budget’s count of polled sessions', () => {
  const stack = useVerificationStack({}, { apiCallsPerSecond: BUDGET });

  it('drops a session that ended through its redirect check or a cancel', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    const polling = { initialMs: 60_000, maxMs: 60_000 };
    const [returning, leaving] = await Promise.all(
      [1, 2].map(() => stack().idv.startVerification(stack().request({ polling }))),
    );
    const budget = () => stack().identity.budget?.stats();
    // The first attempts armed their interval: both sessions counted.
    await eventually(
      () => Promise.resolve(budget()?.polledSessions === 2 ? true : undefined),
      'two polled sessions',
    );
    await stack().control('POST', `/sessions/${returning?.nextStep.sessionId ?? ''}/complete`);
    await returning?.handle.redirectCaptured();
    expect((await returning?.handle.result())?.status).toBe('succeeded');
    await leaving?.handle.cancel('customer left');
    expect((await leaving?.handle.result())?.status).toBe('cancelled');
    expect(budget()?.polledSessions).toBe(0);
  });
});
