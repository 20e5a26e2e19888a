import { MockAgent } from 'undici';
import {
  BUDGET_WINDOW_MS,
  CallBudget,
  type CallPriority,
  DEFAULT_API_RATE,
  EASE_FLOOR,
  MIN_REFUSALS,
  REFUSAL_WINDOW_MS,
  USER_CAP_SHARE,
} from '../../api/http/call-budget';
import { FIRST_CALL_WAIT_MS } from '../../api/http/http-core';
import { OverBudgetError, RateLimitedError } from '../../api/http/errors';
import { createIdentityClient } from '../../api/identity/identity-client';
import { API_KEY, ORIGIN, SESSION_ID } from './mock-service';

/** Most calls granted in any window of one second (a grant at t counts in [t, t + 1000)). */
function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[start] as number) + 1_000) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

/** The service answers 429 often enough to say the process is over its limit. */
function overload(budget: CallBudget, retryAfterMs: number | undefined): void {
  for (let i = 0; i < MIN_REFUSALS; i += 1) budget.throttled(retryAfterMs, budget.now());
}

describe('the call budget', () => {
  // Tests of the window's count itself keep no turns for users (`userShare: 0`): otherwise a tenth
  // of each window waits for them.
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  /** Asks for `count` turns of `priority`; records when and in which order each was granted. */
  function ask(
    budget: CallBudget,
    priority: CallPriority,
    count: number,
    granted: Array<[CallPriority, number]>,
  ) {
    return Array.from({ length: count }, () =>
      budget.acquire(priority).then((turn) => {
        if (turn) granted.push([priority, Date.now()]);
      }),
    );
  }

  it('starts at most callsPerSecond calls in any one-second window, however many ask at once', async () => {
    const budget = new CallBudget({ callsPerSecond: 10, userShare: 0 });
    const granted: Array<[CallPriority, number]> = [];
    const all = Promise.all(ask(budget, 'first', 35, granted));
    await jest.advanceTimersByTimeAsync(5_000);
    await all;
    expect(granted).toHaveLength(35);
    expect(busiestSecond(granted.map(([, at]) => at))).toBe(10);
    // Nothing waits longer than the window needs: 35 calls at 10 a window take three more windows.
    expect(Math.max(...granted.map(([, at]) => at)) - 1_000_000).toBe(3 * BUDGET_WINDOW_MS);
  });

  it('grants every waiting first call before any waiting poll', async () => {
    const budget = new CallBudget({ callsPerSecond: 5, userShare: 0 });
    const granted: Array<[CallPriority, number]> = [];
    const polls = ask(budget, 'poll', 10, granted);
    const firsts = ask(budget, 'first', 5, granted);
    await jest.advanceTimersByTimeAsync(4_000);
    await Promise.all([...polls, ...firsts]);
    // Polls are spread over the window (one took a turn at once); the first calls took theirs
    // before any other poll.
    expect(granted.map(([priority]) => priority)).toEqual([
      'poll',
      ...Array<string>(5).fill('first'),
      ...Array<string>(9).fill('poll'),
    ]);
  });

  it('keeps the rest of the window beyond the poll share for first calls, granted at once while polls wait', async () => {
    const budget = new CallBudget({ callsPerSecond: 25 });
    const granted: Array<[CallPriority, number]> = [];
    // Polls queue for every turn they may take.
    const polls = ask(budget, 'poll', 60, granted);
    await jest.advanceTimersByTimeAsync(100);
    const firsts: Array<Promise<void>> = [];
    for (let n = 0; n < 5; n += 1) {
      firsts.push(...ask(budget, 'first', 1, granted));
      await jest.advanceTimersByTimeAsync(150);
    }
    await jest.advanceTimersByTimeAsync(5_000);
    await Promise.all([...firsts, ...polls]);
    const firstAt = granted.filter(([priority]) => priority === 'first').map(([, at]) => at - 1_000_000);
    expect(firstAt).toEqual([100, 250, 400, 550, 700]);
    // Spread evenly, their share (20) a window at most: no burst takes the window's turns at once
    // (they would come back together a window later).
    const pollAt = granted.filter(([priority]) => priority === 'poll').map(([, at]) => at);
    expect(busiestSecond(pollAt)).toBeLessThanOrEqual(20);
    for (let i = 1; i < pollAt.length; i += 1)
      expect((pollAt[i] as number) - (pollAt[i - 1] as number)).toBeGreaterThanOrEqual(BUDGET_WINDOW_MS / 20);
    expect(busiestSecond(granted.map(([, at]) => at))).toBeLessThanOrEqual(25);
  });

  it('leaves polls every turn first calls do not take, up to their share of the window', async () => {
    const budget = new CallBudget({ callsPerSecond: 10, userShare: 0 });
    const granted: Array<[CallPriority, number]> = [];
    const polls = ask(budget, 'poll', 200, granted);
    const firsts: Array<Promise<void>> = [];
    // Three first calls in each window: polls get the other turns, up to their share (eight).
    for (let window = 0; window < 5; window += 1) {
      firsts.push(...ask(budget, 'first', 3, granted));
      await jest.advanceTimersByTimeAsync(BUDGET_WINDOW_MS);
    }
    const grantedIn = (window: number, of: CallPriority) =>
      granted.filter(
        ([priority, at]) =>
          priority === of &&
          at >= 1_000_000 + window * BUDGET_WINDOW_MS &&
          at < 1_000_000 + (window + 1) * BUDGET_WINDOW_MS,
      ).length;
    for (const window of [1, 2, 3, 4]) {
      // No turn left unused while polls wait, and never more polls than their share.
      expect(grantedIn(window, 'poll') + grantedIn(window, 'first')).toBe(10);
      expect(grantedIn(window, 'poll')).toBeLessThanOrEqual(8);
    }
    expect(busiestSecond(granted.map(([, at]) => at))).toBe(10);
    budget.close();
    await Promise.all([...polls, ...firsts]);
  });

  it("grants a returning user's call before the first calls that wait, and both before polls", async () => {
    const budget = new CallBudget({ callsPerSecond: 5, userShare: 0 });
    const granted: Array<[CallPriority, number]> = [];
    // A burst of creates fills the window and queues; a user comes back meanwhile.
    const creates = ask(budget, 'first', 12, granted);
    const polls = ask(budget, 'poll', 2, granted);
    await jest.advanceTimersByTimeAsync(100);
    const user = ask(budget, 'user', 1, granted);
    await jest.advanceTimersByTimeAsync(5_000);
    await Promise.all([...creates, ...polls, ...user]);
    expect(granted.map(([priority]) => priority)).toEqual([
      ...Array<string>(5).fill('first'),
      'user',
      ...Array<string>(7).fill('first'),
      'poll',
      'poll',
    ]);
    expect(granted[5]?.[1]).toBe(1_000_000 + BUDGET_WINDOW_MS);
  });

  it("keeps a tenth of the window for returning users' calls, granted at once while a burst of creates fills the rest", async () => {
    const budget = new CallBudget({ callsPerSecond: 25 });
    const granted: Array<[CallPriority, number]> = [];
    const creates = ask(budget, 'first', 60, granted);
    await jest.advanceTimersByTimeAsync(100);
    const users = ask(budget, 'user', 3, granted);
    await jest.advanceTimersByTimeAsync(5_000);
    await Promise.all([...creates, ...users]);
    const at = (of: CallPriority) => granted.filter(([priority]) => priority === of).map(([, when]) => when);
    expect(at('user')).toEqual([1_000_100, 1_000_100, 1_000_100]);
    // The creates take the rest of each window: 22 of 25, and all of them in time.
    expect(at('first')).toHaveLength(60);
    expect(busiestSecond(at('first'))).toBe(22);
    expect(busiestSecond(granted.map(([, when]) => when))).toBeLessThanOrEqual(25);
  });

  it("keeps the users' turns free while returns come faster than a window's kept turns, a burst of creates waiting", async () => {
    // 25 calls/s: three turns kept. Returns come every 250 ms, each a check and its results.
    const budget = new CallBudget({ callsPerSecond: 25 });
    const waited: Array<[askedAt: number, waitedMs: number]> = [];
    const creates = ask(budget, 'first', 200, []);
    const users: Array<Promise<unknown>> = [];
    for (let n = 0; n < 30; n += 1) {
      const askedAt = Date.now();
      for (let call = 0; call < 2; call += 1)
        users.push(
          budget.acquire('user').then(() => waited.push([askedAt - 1_000_000, Date.now() - askedAt])),
        );
      await jest.advanceTimersByTimeAsync(250);
    }
    await jest.advanceTimersByTimeAsync(20_000);
    await Promise.all([...creates, ...users]);
    // Once the creates' first bursts have left the window (they took 22 turns at once), each is
    // granted at once: the creates leave the kept turns free however many the users took. (When
    // the kept turns counted against the creates only, returns waited up to a window throughout.)
    expect(waited).toHaveLength(60);
    expect(waited.filter(([askedAt, waitedMs]) => askedAt >= 3_500 && waitedMs > 0)).toEqual([]);
  });

  it("leaves first calls a turn of each window beside the polls' part and the users'", async () => {
    // 5 calls/s: one kept for users, so polls take 3 of the other 4.
    const budget = new CallBudget({ callsPerSecond: 5 });
    const granted: Array<[CallPriority, number]> = [];
    const polls = ask(budget, 'poll', 20, granted);
    await jest.advanceTimersByTimeAsync(900);
    const first = ask(budget, 'first', 1, granted);
    await jest.advanceTimersByTimeAsync(0);
    expect(granted.filter(([priority]) => priority === 'first')).toEqual([['first', 1_000_900]]);
    budget.close();
    await Promise.all([...polls, ...first]);
  });

  it("caps users' calls at most of each window, so a caller that keeps asking leaves the others their turns", async () => {
    const budget = new CallBudget({ callsPerSecond: 10, userShare: 0 });
    const granted: Array<[CallPriority, number]> = [];
    // A client refreshing a step in a loop (or signalling returns) asks far more than the rate.
    const users = ask(budget, 'user', 100, granted);
    const creates = ask(budget, 'first', 10, granted);
    const polls = ask(budget, 'poll', 10, granted);
    await jest.advanceTimersByTimeAsync(6 * BUDGET_WINDOW_MS);
    const grantedBy = (of: CallPriority) =>
      granted.filter(([priority]) => priority === of).map(([, at]) => at);
    // Six windows: the users took eight of each (their cap), the creates and then the polls the rest.
    expect(busiestSecond(grantedBy('user'))).toBe(10 * USER_CAP_SHARE);
    expect(grantedBy('first')).toHaveLength(10);
    expect(grantedBy('poll').length).toBeGreaterThan(0);
    expect(busiestSecond(granted.map(([, at]) => at))).toBe(10);
    budget.close();
    await Promise.all([...users, ...creates, ...polls]);
  });

  it("leaves other calls a quarter of each window however many users' calls wait, in a worker's small part", async () => {
    // Five workers sharing 25 calls/s: 5 a window each, one kept for users.
    for (const callsPerSecond of [5, 25]) {
      const budget = new CallBudget({ callsPerSecond });
      const granted: Array<[CallPriority, number]> = [];
      const users = ask(budget, 'user', 500, granted);
      const creates = ask(budget, 'first', 100, granted);
      await jest.advanceTimersByTimeAsync(4 * BUDGET_WINDOW_MS);
      const createTurns = granted.filter(([priority]) => priority === 'first');
      // Every window a quarter for creates (at least one), the users the rest.
      expect(createTurns.length).toBeGreaterThanOrEqual(4 * Math.max(1, Math.floor(callsPerSecond / 4)));
      expect(busiestSecond(granted.map(([, at]) => at))).toBeLessThanOrEqual(callsPerSecond);
      budget.close();
      await Promise.all([...users, ...creates]);
    }
  });

  it('alternates users and first calls when a window holds one call', async () => {
    const budget = new CallBudget({ callsPerSecond: 1 });
    const granted: Array<[CallPriority, number]> = [];
    const users = ask(budget, 'user', 10, granted);
    const creates = ask(budget, 'first', 2, granted);
    await jest.advanceTimersByTimeAsync(5 * BUDGET_WINDOW_MS);
    expect(granted.slice(0, 5).map(([priority]) => priority)).toEqual([
      'user',
      'first',
      'user',
      'first',
      'user',
    ]);
    budget.close();
    await Promise.all([...users, ...creates]);
  });

  it("shares users' turns past their cap fairly, so one caller that keeps asking waits behind every other person's call", async () => {
    const budget = new CallBudget({ callsPerSecond: 10, userShare: 0 });
    const granted: Array<[string, number]> = [];
    const askFor = (key: string, count: number) =>
      Array.from({ length: count }, () =>
        budget.acquire('user', { key }).then((turn) => {
          if (turn) granted.push([key, Date.now()]);
        }),
      );
    // One client refreshing a step in a loop has 40 calls queued past the users' cap.
    const looping = askFor('/sessions/looping/refresh', 40);
    await jest.advanceTimersByTimeAsync(100);
    const others = [...askFor('/sessions/a', 1), ...askFor('/sessions/b', 1), ...askFor('/sessions/c', 1)];
    await jest.advanceTimersByTimeAsync(BUDGET_WINDOW_MS);
    await Promise.all(others);
    // The three others went with the next window's turns, not after the looping client's queue.
    const otherAt = granted.filter(([key]) => key !== '/sessions/looping/refresh').map(([, at]) => at);
    expect(otherAt).toHaveLength(3);
    for (const at of otherAt) expect(at).toBeLessThanOrEqual(1_000_000 + BUDGET_WINDOW_MS);
    budget.close();
    await Promise.all(looping);
  });

  it('brings a lost turn back at a turn of its own while only users held by their cap wait', async () => {
    const planned = () => {
      const budget = new CallBudget({ callsPerSecond: 10, userShare: 0 });
      budget.share({ callsPerSecond: 10, polledSessions: 100, workers: 4 });
      return budget;
    };
    const idle = planned();
    const busy = planned();
    // A caller that keeps asking holds the users' part; the other turns are free for polls.
    const users = ask(busy, 'user', 20, []);
    expect(busy.stats().waiting).toBe(20 - 10 * USER_CAP_SHARE);
    expect(busy.turnLostDelayMs('s-1', 2_000)).toBe(idle.turnLostDelayMs('s-1', 2_000));
    busy.close();
    idle.close();
    await Promise.all(users);
  });

  it('keeps nothing for users at a limit under 5 calls/s', async () => {
    const budget = new CallBudget({ callsPerSecond: 4 });
    const granted: Array<[CallPriority, number]> = [];
    await Promise.all(ask(budget, 'first', 4, granted));
    expect(granted.map(([, when]) => when)).toEqual(Array<number>(4).fill(1_000_000));
  });

  it('gives a poll up (false) when its longest wait passes first', async () => {
    const budget = new CallBudget({ callsPerSecond: 2 });
    await budget.acquire('first');
    await budget.acquire('first');
    const turn = budget.acquire('poll', { maxWaitMs: 300 });
    await jest.advanceTimersByTimeAsync(300);
    await expect(turn).resolves.toBe(false);
    expect(budget.stats().waiting).toBe(0);
  });

  it('rejects a waiting call with its signal reason when it is aborted', async () => {
    const budget = new CallBudget({ callsPerSecond: 1 });
    await budget.acquire('first');
    const controller = new AbortController();
    const turn = budget.acquire('first', { signal: controller.signal });
    controller.abort(new Error('activity cancelled'));
    await expect(turn).rejects.toThrow('activity cancelled');
    expect(budget.stats().waiting).toBe(0);
  });

  it('once 429s say it is over the limit, starts nothing before Retry-After, halves the limit, then grows it back', async () => {
    const budget = new CallBudget({ callsPerSecond: 20, userShare: 0, recoverEveryMs: 10_000 });
    overload(budget, 3_000);
    expect(budget.stats().currentLimit).toBe(10);
    const granted: Array<[CallPriority, number]> = [];
    const waiting = ask(budget, 'first', 30, granted);
    await jest.advanceTimersByTimeAsync(2_999);
    expect(granted).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(5_000);
    await Promise.all(waiting);
    expect(busiestSecond(granted.map(([, at]) => at))).toBe(10);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(budget.stats().currentLimit).toBe(12);
    await jest.advanceTimersByTimeAsync(40_000);
    expect(budget.stats().currentLimit).toBe(20);
  });

  it('halves once for the 429s of the second after it (calls sent before it), then counts afresh', async () => {
    const budget = new CallBudget({ callsPerSecond: 16 });
    overload(budget, undefined);
    expect(budget.stats().currentLimit).toBe(8);
    for (let i = 0; i < 10; i += 1) budget.throttled(500);
    expect(budget.stats().currentLimit).toBe(8);
    await jest.advanceTimersByTimeAsync(1_000);
    // The refusals that halved it do not count again: one more 429 is a passing one.
    budget.throttled(undefined, budget.now());
    expect(budget.stats().currentLimit).toBe(8);
    overload(budget, undefined);
    expect(budget.stats().currentLimit).toBe(4);
  });

  it('pauses a minute at the most, whatever Retry-After asks for', async () => {
    const budget = new CallBudget({ callsPerSecond: 4 });
    overload(budget, 3_600_000);
    const granted: Array<[CallPriority, number]> = [];
    const waiting = ask(budget, 'first', 1, granted);
    await jest.advanceTimersByTimeAsync(59_999);
    expect(granted).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    await Promise.all(waiting);
    expect(granted).toHaveLength(1);
  });

  it('eases the limit by one, pausing nothing, for 429s under a fifth of the calls of the last 10 s', async () => {
    const budget = new CallBudget({ callsPerSecond: 100, userShare: 0 });
    const granted: Array<[CallPriority, number]> = [];
    await Promise.all(ask(budget, 'first', 100, granted));
    for (let i = 0; i < MIN_REFUSALS; i += 1) budget.throttled(1_000);
    expect(budget.stats().currentLimit).toBe(99);
    expect(budget.pausedForMs()).toBe(0);
    // Once per window.
    await jest.advanceTimersByTimeAsync(2_000);
    await Promise.all(ask(budget, 'first', 50, granted));
    for (let i = 0; i < MIN_REFUSALS; i += 1) budget.throttled(1_000);
    expect(budget.stats().currentLimit).toBe(99);
  });

  it('never eases below 80 % of its rate however long 429s under a fifth go on, and grows back once they stop', async () => {
    const budget = new CallBudget({ callsPerSecond: 100 });
    const granted: Array<[CallPriority, number]> = [];
    for (let round = 0; round < 50; round += 1) {
      await jest.advanceTimersByTimeAsync(REFUSAL_WINDOW_MS / 2);
      await Promise.all(ask(budget, 'first', 40, granted));
      for (let i = 0; i < MIN_REFUSALS; i += 1) budget.throttled(1_000);
    }
    // Its own growing back (a tenth every 5 s) did not undo the easing.
    expect(budget.stats().currentLimit).toBe(100 * EASE_FLOOR);
    expect(budget.pausedForMs()).toBe(0);
    await jest.advanceTimersByTimeAsync(10 * REFUSAL_WINDOW_MS);
    expect(budget.stats().currentLimit).toBe(90);
    await jest.advanceTimersByTimeAsync(10 * REFUSAL_WINDOW_MS);
    expect(budget.stats().currentLimit).toBe(100);
  });

  it('keeps at least 80 % of its rate under 5 % of random 429s for 15 minutes, and never pauses', async () => {
    const budget = new CallBudget({ callsPerSecond: 25, userShare: 0 });
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let lowest = 25;
    let paused = 0;
    for (let second = 0; second < 900; second += 1) {
      const sentAt = budget.now();
      const turns = await Promise.all(
        Array.from({ length: budget.stats().currentLimit }, () => budget.acquire('first', { maxWaitMs: 0 })),
      );
      for (const turn of turns) if (turn && random() < 0.05) budget.throttled(1_000, sentAt);
      lowest = Math.min(lowest, budget.stats().currentLimit);
      if (budget.pausedForMs() > 0) paused += 1;
      await jest.advanceTimersByTimeAsync(BUDGET_WINDOW_MS);
    }
    expect(lowest).toBeGreaterThanOrEqual(25 * EASE_FLOOR);
    expect(paused).toBe(0);
  });

  it('does not count the 429s of calls sent before it halved, and pauses for the longest Retry-After of the window', async () => {
    const budget = new CallBudget({ callsPerSecond: 16 });
    const before = budget.now();
    budget.throttled(5_000, before);
    overload(budget, 1_000);
    expect(budget.stats().currentLimit).toBe(8);
    expect(budget.pausedForMs()).toBe(5_000);
    // Answers to calls sent before the halving, arriving later: the same overload.
    await jest.advanceTimersByTimeAsync(3_000);
    for (let i = 0; i < 10; i += 1) budget.throttled(1_000, before);
    expect(budget.stats().currentLimit).toBe(8);
    // Calls sent after it and refused again: over the limit still.
    for (let i = 0; i < MIN_REFUSALS; i += 1) budget.throttled(1_000, budget.now());
    expect(budget.stats().currentLimit).toBe(4);
  });

  it('counts the 429s of the last 10 s, to a tenth of a second', async () => {
    const inside = new CallBudget({ callsPerSecond: 10 });
    const outside = new CallBudget({ callsPerSecond: 10 });
    for (let i = 1; i < MIN_REFUSALS; i += 1) {
      inside.throttled(1_000);
      outside.throttled(1_000);
    }
    await jest.advanceTimersByTimeAsync(REFUSAL_WINDOW_MS - 100);
    inside.throttled(1_000);
    expect(inside.stats().currentLimit).toBe(5);
    await jest.advanceTimersByTimeAsync(200);
    outside.throttled(1_000);
    expect(outside.stats().currentLimit).toBe(10);
  });

  it('keeps granting when the wall clock steps back (its clock is monotonic)', async () => {
    const budget = new CallBudget({ callsPerSecond: 2 });
    await budget.acquire('first');
    jest.setSystemTime(Date.now() - 3_600_000);
    const granted: Array<[CallPriority, number]> = [];
    const waiting = ask(budget, 'first', 4, granted);
    await jest.advanceTimersByTimeAsync(3 * BUDGET_WINDOW_MS);
    await Promise.all(waiting);
    expect(granted).toHaveLength(4);
  });

  it('stretches polls from its configured rate, not from a limit a 429 halved for a while', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    overload(budget, 1_000);
    expect(budget.stats().currentLimit).toBe(5);
    // 50 sessions over half of the 10 calls the 1.1 s window grants per 1.1 s: 11 s each.
    for (let i = 1; i < 50; i += 1) budget.pollDelayMs(`s-${i}`, 1_000);
    expect(budget.pollDelayMs('s-50', 1_000)).toBe(11_000);
  });

  it('asks for no poll delay above ten minutes', () => {
    const budget = new CallBudget({ callsPerSecond: 1, pollShare: 0.5 });
    for (let i = 1; i < 1_000; i += 1) budget.pollDelayMs(`s-${i}`, 1_000);
    expect(budget.pollDelayMs('s-1000', 1_000)).toBe(600_000);
    expect(budget.pollDelayMs('s-1', 900_000)).toBe(900_000);
  });

  it('stretches poll intervals so that all sessions polled fit in its poll share', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    // Few sessions: each keeps its own interval.
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(2_000);
    for (let i = 2; i <= 100; i += 1) budget.pollDelayMs(`s-${i}`, 2_000);
    // 100 sessions at 5 polls per 1.1 s (the window): each polled every 22 s, none more often.
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(22_000);
    expect(budget.pollDelayMs('s-1', 60_000)).toBe(60_000);
    for (let i = 51; i <= 100; i += 1) budget.forget(`s-${i}`);
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(11_000);
    expect(budget.stats().polledSessions).toBe(50);
  });

  it('plans polls for the turns the other calls leave in each window, so that a poll due finds its turn', async () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    for (let i = 1; i <= 100; i += 1) budget.pollDelayMs(`s-${i}`, 2_000);
    // Creates and results fetches take 5 turns of every window for 10 s, of the 9 the calls
    // other than users' checks may hold: 4 are left to polls, not their part's 5. Planned for 5,
    // every poll would wait and one in five would find no turn.
    for (let at = 0; at < REFUSAL_WINDOW_MS; at += BUDGET_WINDOW_MS / 5) {
      await expect(budget.acquire('first')).resolves.toBe(true);
      jest.advanceTimersByTime(BUDGET_WINDOW_MS / 5);
    }
    const planned = budget.pollDelayMs('s-1', 2_000);
    // 100 sessions at 4 polls per 1.1 s: 27.5 s each.
    expect(planned).toBeGreaterThan(27_000);
    expect(planned).toBeLessThan(28_000);
    // The other calls stop: the polls have their whole part again.
    jest.advanceTimersByTime(REFUSAL_WINDOW_MS);
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(22_000);
  });

  it('keeps planning polls for half their part while a burst of creates takes every turn', async () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    for (let i = 1; i <= 100; i += 1) budget.pollDelayMs(`s-${i}`, 2_000);
    const creates = Array.from({ length: 200 }, () => budget.acquire('first'));
    jest.advanceTimersByTime(REFUSAL_WINDOW_MS);
    // Polls planned for no turn at all would wait ten minutes once the burst is over; planned for
    // half their part (2.5 per 1.1 s), 44 s.
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(44_000);
    budget.close();
    await Promise.all(creates);
  });

  /** 100 sessions planned, then a burst of 100 creates that takes every turn for 10 s and more. */
  async function burstOfCreates() {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    for (let i = 1; i <= 100; i += 1) budget.pollDelayMs(`s-${i}`, 2_000);
    const creates = Array.from({ length: 100 }, () => budget.acquire('first'));
    await jest.advanceTimersByTimeAsync(REFUSAL_WINDOW_MS);
    return { budget, creates };
  }

  it('brings sooner, in proportion, the polls planned while a burst of creates took their turns, once it is over', async () => {
    const { budget, creates } = await burstOfCreates();
    // Planned for half the polls' part while the creates take every turn: 44 s; a lost turn
    // comes back after the whole fair delay; a session's own interval of 30 s stays its floor.
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(44_000);
    expect(budget.turnLostDelayMs('s-2', 2_000)).toBe(44_000);
    expect(budget.pollDelayMs('s-3', 30_000)).toBe(44_000);
    const plannedAt = Date.now();
    // Creates still wait: no turn is free.
    expect(budget.pollSooner('s-1', 44_000)).toBeUndefined();
    // The burst ends, and its turns leave the last 10 s: the polls have their whole part again
    // (a fair delay of 22 s), so what is left of each delay is halved, or cut to 30/44 of it
    // for the session whose own interval is 30 s.
    await jest.advanceTimersByTimeAsync(2 * REFUSAL_WINDOW_MS);
    await Promise.all(creates);
    const left = plannedAt + 44_000 - Date.now();
    expect(budget.pollSooner('s-1', left)).toBe(Math.round(left / 2));
    expect(budget.pollSooner('s-2', left)).toBe(Math.round(left / 2));
    expect(budget.pollSooner('s-3', left)).toBe(Math.round((left * 30) / 44));
    // Once brought sooner, a plan stands until the turns grow again.
    expect(budget.pollSooner('s-1', left / 2)).toBeUndefined();
    budget.close();
  });

  it('keeps the plans of polls while 429s pause the calls, though fewer calls were granted', async () => {
    const { budget, creates } = await burstOfCreates();
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(44_000);
    budget.close();
    await Promise.all(creates);
    await jest.advanceTimersByTimeAsync(REFUSAL_WINDOW_MS);
    // The service answers 429 to a fifth of the calls and more: every call pauses for its Retry-After.
    for (let i = 0; i < 30; i += 1) budget.throttled(60_000, budget.now());
    await jest.advanceTimersByTimeAsync(REFUSAL_WINDOW_MS + BUDGET_WINDOW_MS);
    expect(budget.pausedForMs()).toBeGreaterThan(0);
    expect(budget.pollSooner('s-1', 30_000)).toBeUndefined();
  });

  it('leaves the plan of a poll its own interval bounds as it is, and of a session it does not know', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    expect(budget.pollDelayMs('s-1', 60_000)).toBe(60_000);
    jest.advanceTimersByTime(REFUSAL_WINDOW_MS);
    expect(budget.pollSooner('s-1', 50_000)).toBeUndefined();
    expect(budget.pollSooner('unknown', 50_000)).toBeUndefined();
  });

  it('does not count again a session it was told had ended (a poll attempt under way then)', () => {
    const budget = new CallBudget({ callsPerSecond: 10 });
    budget.pollDelayMs('s-1', 1_000);
    budget.forget('s-1');
    expect(budget.pollDelayMs('s-1', 1_000)).toBe(1_000);
    expect(budget.stats().polledSessions).toBe(0);
  });

  it('forgets sessions that were not polled again long after their announced return', async () => {
    const budget = new CallBudget({ callsPerSecond: 10 });
    for (let i = 0; i < 40; i += 1) budget.pollDelayMs(`s-${i}`, 1_000);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(budget.pollDelayMs('s-new', 1_000)).toBe(1_000);
    expect(budget.stats().polledSessions).toBe(1);
  });

  it('grants no more than its share of the rate, holds every call at a share of 0, and grants again at the next share', async () => {
    const budget = new CallBudget({ callsPerSecond: 12, userShare: 0 });
    budget.share({ callsPerSecond: 4, polledSessions: 0 });
    const granted: Array<[CallPriority, number]> = [];
    const some = Promise.all(ask(budget, 'first', 8, granted));
    await jest.advanceTimersByTimeAsync(3_000);
    await some;
    expect(busiestSecond(granted.map(([, at]) => at))).toBe(4);
    budget.share({ callsPerSecond: 0, polledSessions: 0 });
    const held: Array<[CallPriority, number]> = [];
    const more = Promise.all(ask(budget, 'first', 6, held));
    await jest.advanceTimersByTimeAsync(10_000);
    expect(held).toHaveLength(0);
    expect(budget.stats()).toMatchObject({ share: 0, waiting: 6, callsPerSecond: 12 });
    budget.share({ callsPerSecond: 6, polledSessions: 0 });
    await jest.advanceTimersByTimeAsync(0);
    await more;
    expect(held).toHaveLength(6);
    expect(() => budget.share({ callsPerSecond: 13, polledSessions: 0 })).toThrow(RangeError);
  });

  it('holds every call once its share runs out, until the next share', async () => {
    const budget = new CallBudget({ callsPerSecond: 10, userShare: 0 });
    budget.share({ callsPerSecond: 5, polledSessions: 0, validUntil: budget.now() + 4_000 });
    const granted: Array<[CallPriority, number]> = [];
    const calls = Promise.all(ask(budget, 'first', 40, granted));
    await jest.advanceTimersByTimeAsync(10_000);
    // 5 per 1.1 s window while the share held: windows starting at 0, 1.1, 2.2 and 3.3 s.
    expect(granted).toHaveLength(20);
    expect(budget.stats()).toMatchObject({ share: 0, currentLimit: 0, waiting: 20 });
    budget.share({ callsPerSecond: 10, polledSessions: 0 });
    await jest.advanceTimersByTimeAsync(2_200);
    await calls;
    expect(granted).toHaveLength(40);
  });

  it('keeps what 429s took, in proportion, when its share changes, and grows back to the share only', async () => {
    const budget = new CallBudget({ callsPerSecond: 20 });
    budget.share({ callsPerSecond: 10, polledSessions: 0 });
    overload(budget, 1_000);
    expect(budget.stats().currentLimit).toBe(5);
    budget.share({ callsPerSecond: 4, polledSessions: 0 });
    expect(budget.stats().currentLimit).toBe(2);
    budget.share({ callsPerSecond: 10, polledSessions: 0 });
    expect(budget.stats().currentLimit).toBe(5);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(budget.stats().currentLimit).toBe(10);
  });

  it('plans polls for the whole rate over the sessions of every process sharing it', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    budget.share({ callsPerSecond: 5, polledSessions: 100 });
    // 100 sessions across the processes at half of 10 calls per 1.1 s: each polled every 22 s,
    // though this process ran the polls of one of them only.
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(22_000);
    budget.share({ callsPerSecond: 5, polledSessions: 0 });
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(2_000);
  });

  it('plans shared polls from the count of every process, not from sessions it polled that another found done', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    // 200 sessions polled here, each announced 44 s out; past that, other processes found most
    // of them done (this one still remembers them a while).
    for (let i = 1; i <= 200; i += 1) budget.pollDelayMs(`s-${i}`, 2_000);
    jest.advanceTimersByTime(50_000);
    budget.share({ callsPerSecond: 5, polledSessions: 50 });
    // 50 still polled, at half of 10 calls per 1.1 s: each every 11 s (not 44 s for 200).
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(11_000);
  });

  it('never plans shared polls over fewer sessions than it awaits itself (a count that lags)', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    for (let i = 1; i <= 200; i += 1) budget.pollDelayMs(`s-${i}`, 2_000);
    jest.advanceTimersByTime(BUDGET_WINDOW_MS);
    // Visibility counted 5 while this process alone awaits the polls of 200.
    budget.share({ callsPerSecond: 5, polledSessions: 5, workers: 2 });
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(44_000);
  });

  it('plans shared polls from its own sessions times the workers while no count comes', () => {
    /** Longer than any delay the 50 old sessions below were given (alone at first). */
    const MAX_AWAIT_MS = 20_000;
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    // One of four workers, the count of every process failed: the 50 sessions this one polls
    // stand for about 200 in all (Temporal spreads the polls over the workers).
    budget.share({ callsPerSecond: 3, polledSessions: 0, workers: 4 });
    // 50 sessions polled here a while ago, since polled by the others (this one still
    // remembers them): not its part any more.
    for (let i = 1; i <= 50; i += 1) budget.pollDelayMs(`old-${i}`, 2_000);
    jest.advanceTimersByTime(MAX_AWAIT_MS + BUDGET_WINDOW_MS);
    // The 50 whose next poll it awaits now stand for about 200 in all.
    for (let i = 1; i <= 50; i += 1) budget.pollDelayMs(`s-${i}`, 60_000);
    jest.advanceTimersByTime(BUDGET_WINDOW_MS);
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(44_000);
  });

  it('refuses a share whose number of workers is not a number', () => {
    const budget = new CallBudget({ callsPerSecond: 10 });
    expect(() => budget.share({ callsPerSecond: 5, polledSessions: 0, workers: Number.NaN })).toThrow(
      RangeError,
    );
  });

  it('brings polls that lost their turn back at turns of their own once the polls waiting have had theirs', async () => {
    // 10 calls a window, polls 5 of them: one poll every 220 ms; 100 sessions: a fair delay of 22 s.
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    budget.share({ callsPerSecond: 10, polledSessions: 100 });
    const polls = ask(budget, 'poll', 25, []);
    // One granted, 24 waiting: a lost turn comes back once they have had theirs (24 × 220 ms),
    // the next one a spacing later, and so on (not all at the same moment, to lose again).
    expect(budget.stats().waiting).toBe(24);
    expect(budget.turnLostDelayMs('s-1', 1_000)).toBe(5_280);
    expect(budget.turnLostDelayMs('s-2', 1_000)).toBe(5_500);
    expect(budget.turnLostDelayMs('s-3', 1_000)).toBe(5_720);
    // The session's own interval (a pause's Retry-After) still holds; its next poll stays fair.
    expect(budget.turnLostDelayMs('s-4', 8_000)).toBe(8_000);
    expect(budget.pollDelayMs('s-1', 2_000)).toBe(22_000);
    // Never later than the fair delay: a turn that far off is not reserved.
    const more = ask(budget, 'poll', 100, []);
    expect(budget.turnLostDelayMs('s-5', 1_000)).toBe(22_000);
    expect(budget.turnLostDelayMs('s-6', 1_000)).toBe(22_000);
    budget.close();
    await Promise.all([...polls, ...more]);
    // Nothing waiting, the last reserved turn long past: at once, but for its own interval, and
    // the next ones a spacing after it (not all at the end of their interval together).
    jest.advanceTimersByTime(30_000);
    expect(budget.turnLostDelayMs('s-7', 1_000)).toBe(1_000);
    expect(budget.turnLostDelayMs('s-8', 1_000)).toBe(1_220);
    expect(budget.turnLostDelayMs('s-9', 1_000)).toBe(1_440);
  });

  it('brings a lost turn back no later than the fair delay divided by the workers sharing the rate', async () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    // One of four: only this part was full; the next attempt may go to any of the four.
    budget.share({ callsPerSecond: 3, polledSessions: 100, workers: 4 });
    const polls = ask(budget, 'poll', 200, []);
    expect(budget.turnLostDelayMs('s-1', 2_000)).toBe(5_500);
    // More workers than calls per second: only as many parts as calls.
    budget.share({ callsPerSecond: 0, polledSessions: 100, workers: 40 });
    expect(budget.turnLostDelayMs('s-1', 1_000)).toBe(2_200);
    budget.close();
    await Promise.all(polls);
    // Held (no part, or one that ran out), it has no turn to give even with nothing waiting: the
    // others' parts may have one.
    expect(budget.turnLostDelayMs('s-2', 1_000)).toBe(2_200);
    budget.share({ callsPerSecond: 3, polledSessions: 100, workers: 4, validUntil: budget.now() + 1_000 });
    jest.advanceTimersByTime(2_000);
    expect(budget.turnLostDelayMs('s-3', 1_000)).toBe(5_500);
  });

  it('brings a lost turn back after the whole fair delay while first calls wait for its part', async () => {
    // A burst of starts fills this part, and as likely every other worker's: a poll sent back to
    // any of them sooner would only lose its turn again.
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    budget.share({ callsPerSecond: 3, polledSessions: 100, workers: 4 });
    const firsts = ask(budget, 'first', 10, []);
    expect(budget.stats().waiting).toBe(7);
    expect(budget.turnLostDelayMs('s-1', 2_000)).toBe(22_000);
    budget.close();
    await Promise.all(firsts);
    // Nothing waits any more: at once, but for its own interval.
    expect(budget.turnLostDelayMs('s-2', 2_000)).toBe(2_000);
  });

  it('brings a lost turn back after the whole fair delay while 429s say the service is full', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    budget.share({ callsPerSecond: 3, polledSessions: 100, workers: 4 });
    overload(budget, 1_000);
    expect(budget.turnLostDelayMs('s-1', 2_000)).toBe(22_000);
    jest.advanceTimersByTime(2_000);
    // No longer paused, the limit still below the part.
    expect(budget.pausedForMs()).toBe(0);
    expect(budget.turnLostDelayMs('s-1', 2_000)).toBe(22_000);
    // Once the limit has grown back to the part (nothing else asked the budget meanwhile), only
    // the part was full: nothing waits, so at once, but for its own interval.
    jest.advanceTimersByTime(120_000);
    expect(budget.turnLostDelayMs('s-1', 2_000)).toBe(2_000);
  });

  it('refuses a budget below one call per second', () => {
    expect(() => new CallBudget({ callsPerSecond: 0 })).toThrow(RangeError);
    expect(() => new CallBudget({ callsPerSecond: Number.NaN })).toThrow(RangeError);
    expect(() => new CallBudget({ callsPerSecond: 5, pollShare: 0 })).toThrow(RangeError);
    expect(() => new CallBudget({ callsPerSecond: 5, userShare: 0.5 })).toThrow(RangeError);
    expect(() => new CallBudget({ callsPerSecond: 5, userShare: -0.1 })).toThrow(RangeError);
    expect(() => new CallBudget({ callsPerSecond: 5, recoverEveryMs: 0 })).toThrow(RangeError);
  });
});

describe('the identity client under a budget', () => {
  const getSession = { method: 'GET', path: `/api/v1/sessions/${SESSION_ID}` };
  const session = {
    session: { id: SESSION_ID, state: 'IdvInProgress', done: false, success: false, created: 0, updated: 0 },
  };

  it('tightens the budget on 429s and keeps the service’s Retry-After on the error', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get(ORIGIN)
      .intercept(getSession)
      .reply(429, '', { headers: { 'retry-after': '2' } })
      .times(MIN_REFUSALS);
    const budget = new CallBudget({ callsPerSecond: 8 });
    const identity = createIdentityClient({ baseUrl: ORIGIN, apiKey: API_KEY, dispatcher: agent, budget });
    const errors = await Promise.all(
      Array.from({ length: MIN_REFUSALS }, () => identity.sessions.get(SESSION_ID).catch((e: unknown) => e)),
    );
    const error = errors[0];
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(2_000);
    expect(budget.stats().currentLimit).toBe(4);
    // Paused until Retry-After: a poll that may wait only a little is not sent.
    const refused = await identity.sessions
      .get(SESSION_ID, { priority: 'poll', budgetWaitMs: 50 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OverBudgetError);
    expect(budget.stats().granted).toBe(MIN_REFUSALS);
    budget.close();
    await identity.close();
    await agent.close();
  });

  it('has a budget of its own at the default rate unless told otherwise', async () => {
    const own = createIdentityClient({ baseUrl: ORIGIN, apiKey: API_KEY });
    expect(own.budget?.stats().callsPerSecond).toBe(DEFAULT_API_RATE);
    await own.close();
    const unlimited = createIdentityClient({ baseUrl: ORIGIN, apiKey: API_KEY, budget: 'unlimited' });
    expect(unlimited.budget).toBeUndefined();
    await unlimited.close();
  });

  it('does not send a call that waited 20 s for its turn: it fails OverBudgetError', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const agent = new MockAgent();
    agent.disableNetConnect();
    const budget = new CallBudget({ callsPerSecond: 1 });
    overload(budget, 60_000);
    const identity = createIdentityClient({ baseUrl: ORIGIN, apiKey: API_KEY, dispatcher: agent, budget });
    const call = identity.sessions.get(SESSION_ID).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(FIRST_CALL_WAIT_MS);
    const error = await call;
    expect(error).toBeInstanceOf(OverBudgetError);
    // Its retry comes after the pause, not into it.
    expect((error as OverBudgetError).retryAfterMs).toBe(60_000 - FIRST_CALL_WAIT_MS);
    expect(budget.stats()).toMatchObject({ granted: 0, waiting: 0 });
    jest.useRealTimers();
    budget.close();
    await identity.close();
    await agent.close();
  });

  it('sends once its turn comes', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get(ORIGIN)
      .intercept(getSession)
      .reply(200, session, { headers: { 'content-type': 'application/json' } });
    const budget = new CallBudget({ callsPerSecond: 1 });
    const identity = createIdentityClient({ baseUrl: ORIGIN, apiKey: API_KEY, dispatcher: agent, budget });
    await expect(identity.sessions.get(SESSION_ID, { priority: 'poll' })).resolves.toMatchObject({
      id: SESSION_ID,
    });
    expect(budget.stats().granted).toBe(1);
    await identity.close();
    await agent.close();
  });
});
