import { AsyncLocalStorage } from 'node:async_hooks';
import { ActivityCancelledError, ActivityNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type AttemptServer, type HeldPollDetails } from '../../verification/activities/attempt-server';
import { type HeldAttempt, HeldPolls, type PollStep } from '../../verification/activities/held-polls';
import { eventually } from '../harness/eventually';

// The server calls of held poll attempts fail here on purpose (a Temporal server cannot be made to
// refuse one call on demand); the real worker, server and emulator are in
// test/verification/polling.test.ts.

type Call =
  | { kind: 'complete'; token: string; result: unknown }
  | { kind: 'fail'; token: string; failure: ApplicationFailure; details: HeldPollDetails }
  | { kind: 'heartbeat'; token: string; details: HeldPollDetails }
  | { kind: 'cancelled'; token: string };

/** A server that records its calls; `refuse` decides, per call, what it throws instead. */
function recordingServer(refuse: (call: Call) => Error | undefined = () => undefined) {
  const calls: Call[] = [];
  const record = (call: Call) => {
    calls.push(call);
    const error = refuse(call);
    if (error) throw error;
    return Promise.resolve();
  };
  const server: AttemptServer = {
    complete: async (token, result) => record({ kind: 'complete', token: text(token), result }),
    fail: async (token, failure, details) =>
      record({ kind: 'fail', token: text(token), failure: failure as ApplicationFailure, details }),
    heartbeat: async (token, details) => record({ kind: 'heartbeat', token: text(token), details }),
    reportCancellation: async (token) => record({ kind: 'cancelled', token: text(token) }),
  };
  return { server, calls };
}

const text = (token: Uint8Array) => Buffer.from(token).toString();

/** An attempt whose polls answer `steps` in turn (the last one again and again). */
function attempt(
  token: string,
  steps: ((poll: number, stillWanted: () => Promise<boolean>) => Promise<PollStep<string>>)[],
  overrides: Partial<HeldAttempt<string>> = {},
): HeldAttempt<string> & { polls: number[] } {
  const polls: number[] = [];
  return {
    taskToken: Buffer.from(token),
    key: token,
    attempt: 3,
    poll: 5,
    holdUntilMs: Date.now() + 60_000,
    endsAtMs: Date.now() + 150_000,
    run: (poll, { stillWanted }) => {
      polls.push(poll);
      const step = steps[Math.min(polls.length, steps.length) - 1];
      if (!step) throw new Error('no step');
      return step(poll, stillWanted);
    },
    handBack: (delayMs, reason) =>
      ApplicationFailure.create({ type: 'SessionRunning', message: reason, nextRetryDelay: delayMs }),
    polls,
    ...overrides,
  };
}

/** Waits until `condition` holds (the held polls run on their own timers). */
const until = (condition: () => boolean, what: string) =>
  eventually(() => Promise.resolve(condition() ? true : undefined), what);

const again = (againMs: number) => () => Promise.resolve({ againMs, reason: 'running' });
const done = (outcome: string) => () => Promise.resolve({ outcome });

describe('held poll attempts', () => {
  it('polls on at each delay, numbering its polls from the first, and completes with the outcome', async () => {
    const { server, calls } = recordingServer();
    const held = new HeldPolls();
    held.open(server);
    const one = attempt('a', [again(10), again(10), done('succeeded')]);
    held.hold(one);
    await until(() => calls.length > 0, 'the completion');
    expect(one.polls).toEqual([5, 6, 7]);
    expect(calls).toEqual([{ kind: 'complete', token: 'a', result: 'succeeded' }]);
    expect(held.size).toBe(0);
  });

  it('brings a waiting poll sooner when its attempt asks for it, and keeps numbering its polls', async () => {
    const { server, calls } = recordingServer();
    const held = new HeldPolls({ retimeEveryMs: 10 });
    held.open(server);
    const asked: number[] = [];
    const one = attempt('a', [again(10), again(50_000), done('succeeded')], {
      // Asked while the second poll's long wait runs: it comes 20 ms from then instead.
      sooner: (leftMs) => {
        asked.push(one.polls.length);
        expect(leftMs).toBeLessThanOrEqual(50_000);
        return one.polls.length === 2 ? 20 : undefined;
      },
    });
    held.hold(one);
    await until(() => calls.length > 0, 'the completion');
    expect(one.polls).toEqual([5, 6, 7]);
    expect(calls).toEqual([{ kind: 'complete', token: 'a', result: 'succeeded' }]);
    expect(asked).toContain(2);
    await held.release();
  });

  it('tells an outcome the server could not be told again, until it is told', async () => {
    let refusals = 2;
    const { server, calls } = recordingServer((call) =>
      call.kind === 'complete' && refusals-- > 0 ? new Error('unavailable') : undefined,
    );
    const warnings: string[] = [];
    const held = new HeldPolls({ warn: (message) => warnings.push(message) });
    held.open(server);
    held.hold(attempt('a', [done('succeeded')]));
    await until(() => held.size === 0, 'the outcome told');
    expect(calls.map((call) => call.kind)).toEqual(['complete', 'complete', 'complete']);
    expect(warnings).toEqual([]);
  });

  it('tells an ending being told again once more at once when released, before the release ends', async () => {
    let refusals = 1;
    const { server, calls } = recordingServer((call) =>
      call.kind === 'complete' && refusals-- > 0 ? new Error('unavailable') : undefined,
    );
    const held = new HeldPolls();
    held.open(server);
    held.hold(attempt('a', [done('succeeded')]));
    await until(() => calls.length === 1, 'the first try');
    await held.release();
    expect(calls.map((call) => call.kind)).toEqual(['complete', 'complete']);
  });

  it('stops telling an ending the server no longer knows, without a warning', async () => {
    const { server, calls } = recordingServer(() => new ActivityNotFoundError('Not found'));
    const warnings: string[] = [];
    const held = new HeldPolls({ warn: (message) => warnings.push(message) });
    held.open(server);
    held.hold(attempt('a', [done('succeeded')]));
    await until(() => held.size === 0, 'the attempt let go');
    expect(calls).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it('runs its polls outside the async context of the activity that handed the attempt over', async () => {
    const { server } = recordingServer();
    const held = new HeldPolls();
    held.open(server);
    const activityContext = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const one = attempt('a', [
      () => {
        seen.push(activityContext.getStore());
        return Promise.resolve({ againMs: 10, reason: 'running' });
      },
      () => {
        seen.push(activityContext.getStore());
        return Promise.resolve({ outcome: 'succeeded' });
      },
    ]);
    activityContext.run('the activity', () => held.hold(one));
    await until(() => held.size === 0, 'the outcome');
    expect(seen).toEqual([undefined, undefined]);
  });

  it('hands the attempt back in one call, with its poll count, once the next poll would start past its bound', async () => {
    const { server, calls } = recordingServer();
    const held = new HeldPolls();
    held.open(server);
    held.hold(attempt('a', [again(10), again(120_000)]));
    await until(() => calls.length > 0, 'the hand-back');
    expect(calls).toHaveLength(1);
    const [handBack] = calls;
    expect(handBack).toMatchObject({ kind: 'fail', token: 'a', details: { polls: 6, attempt: 3 } });
    expect(handBack?.kind === 'fail' && handBack.failure.nextRetryDelay).toBe(120_000);
    expect(held.size).toBe(0);
  });

  it('hands back a poll that lost its turn under the budget at once, for any worker to make', async () => {
    const { server, calls } = recordingServer();
    const held = new HeldPolls();
    held.open(server);
    held.hold(attempt('a', [() => Promise.resolve({ againMs: 700, reason: 'over budget', handBack: true })]));
    await until(() => calls.length > 0, 'the hand-back');
    expect(calls).toMatchObject([{ kind: 'fail', details: { polls: 5, attempt: 3 } }]);
    const [handBack] = calls;
    expect(handBack?.kind === 'fail' && handBack.failure.nextRetryDelay).toBe(700);
  });

  it('fails the attempt with a poll’s failure, its poll count along, for Temporal to retry', async () => {
    const { server, calls } = recordingServer();
    const held = new HeldPolls();
    held.open(server);
    const failure = ApplicationFailure.create({ type: 'ServerError', message: '503' });
    held.hold(attempt('a', [again(10), () => Promise.reject(failure)]));
    await until(() => calls.length > 0, 'the failure');
    expect(calls).toEqual([{ kind: 'fail', token: 'a', failure, details: { polls: 6, attempt: 3 } }]);
  });

  it('asks before it acts on an outcome, and reports a cancel instead of fetching anything', async () => {
    const { server, calls } = recordingServer((call) =>
      call.kind === 'heartbeat' ? new ActivityCancelledError('cancelled') : undefined,
    );
    const held = new HeldPolls();
    held.open(server);
    let fetched = false;
    held.hold(
      attempt('a', [
        async (_poll, stillWanted) => {
          if (!(await stillWanted())) return { unwanted: true };
          fetched = true;
          return { outcome: 'succeeded' };
        },
      ]),
    );
    await until(() => held.size === 0, 'the cancel reported');
    expect(calls).toEqual([
      { kind: 'heartbeat', token: 'a', details: { polls: 5, attempt: 3 } },
      { kind: 'cancelled', token: 'a' },
    ]);
    expect(fetched).toBe(false);
  });

  it('asks an older attempt of the same session at once when a newer one comes, and stops it when cancelled', async () => {
    const { server, calls } = recordingServer((call) =>
      call.kind === 'heartbeat' && call.token === 'older'
        ? new ActivityCancelledError('cancelled')
        : undefined,
    );
    const held = new HeldPolls();
    held.open(server);
    const older = attempt('older', [again(30_000)], { key: 'session' });
    held.hold(older);
    await until(() => older.polls.length > 0, 'the older attempt’s first poll');
    held.hold(attempt('newer', [again(30_000)], { key: 'session' }));
    await until(() => held.size === 1, 'the older attempt stopped');
    expect(calls.map(({ kind, token }) => ({ kind, token }))).toEqual([
      { kind: 'heartbeat', token: 'older' },
      { kind: 'cancelled', token: 'older' },
    ]);
    await held.release();
  });

  it('asks the attempt of a session the workflow checks itself, and stops it when cancelled', async () => {
    const { server, calls } = recordingServer((call) =>
      call.kind === 'heartbeat' ? new ActivityCancelledError('cancelled') : undefined,
    );
    const held = new HeldPolls();
    held.open(server);
    const one = attempt('a', [again(30_000)], { key: 'session' });
    held.hold(one);
    await until(() => one.polls.length > 0, 'the first poll');
    held.ask('another session');
    held.ask('session');
    await until(() => held.size === 0, 'the attempt stopped');
    expect(calls.map(({ kind, token }) => ({ kind, token }))).toEqual([
      { kind: 'heartbeat', token: 'a' },
      { kind: 'cancelled', token: 'a' },
    ]);
    expect(one.polls).toEqual([5]);
  });

  it('hands every attempt back when released, with the time left to its next poll, and polls no more', async () => {
    const { server, calls } = recordingServer();
    const held = new HeldPolls();
    held.open(server);
    const waiting = attempt('a', [again(30_000)]);
    held.hold(waiting);
    held.hold(attempt('b', [again(30_000)], { key: 'b' }));
    await until(() => waiting.polls.length > 0, 'the first poll');
    await held.release();
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({ kind: 'fail', details: { polls: 5, attempt: 3 } });
      const delay = call.kind === 'fail' ? (call.failure.nextRetryDelay as number) : 0;
      expect(delay).toBeGreaterThan(25_000);
      expect(delay).toBeLessThanOrEqual(30_000);
    }
    expect(held.accepting).toBe(false);
    expect(waiting.polls).toEqual([5]);
  });

  it('holds no more attempts than its bound (the rest make one poll each)', () => {
    const { server } = recordingServer();
    const held = new HeldPolls({ max: 1 });
    expect(held.accepting).toBe(false);
    held.open(server);
    expect(held.accepting).toBe(true);
    held.hold(attempt('a', [again(30_000)]));
    expect(held.accepting).toBe(false);
    return held.release();
  });
});
