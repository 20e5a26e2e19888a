import { type CompletionTimesStore } from '../../stores/completion-times-store';
import { PollLearning } from '../../verification/activities/poll-learning';
import { addCounts, binOf, type CompletionCounts, emptyCounts } from '../../common/completion-bins';
import { MIN_COMPLETIONS } from '../../verification/domain/inspection-curve';

/** A store in memory, as every worker would share one; `failing` makes it refuse. */
class MemoryCompletionTimes implements CompletionTimesStore {
  readonly totals = new Map<string, CompletionCounts>();
  failing = false;

  add(counts: ReadonlyMap<string, CompletionCounts>): Promise<void> {
    if (this.failing) return Promise.reject(new Error('store away'));
    for (const [provider, each] of counts) {
      let total = this.totals.get(provider);
      if (!total) this.totals.set(provider, (total = emptyCounts()));
      addCounts(total, each);
    }
    return Promise.resolve();
  }

  read(): Promise<Map<string, CompletionCounts>> {
    if (this.failing) return Promise.reject(new Error('store away'));
    return Promise.resolve(new Map(this.totals));
  }
}

describe('what polls learn of completion times', () => {
  let now = 0;
  const clock = () => now;
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  /** `count` sessions polled at 10 s and found done by the next poll, at 30 s. */
  const pollAll = (learning: PollLearning, count: number, provider = 'p') => {
    for (let i = 0; i < count; i += 1) learning.running(`s-${i}`, provider, 10_000, 1);
    for (let i = 0; i < count; i += 1) learning.completed(`s-${i}`, provider, 30_000, 2);
  };

  it('counts a completion halfway between the poll that saw it running and the one that saw it done', async () => {
    const store = new MemoryCompletionTimes();
    const learning = new PollLearning({ store, syncEveryMs: 1_000, now: clock });
    pollAll(learning, MIN_COMPLETIONS);
    expect(learning.curve('p')).toBeDefined();
    await flush(); // the first poll's sync, of nothing yet
    now += 1_000;
    learning.running('another', 'p', 0, 0);
    await flush();
    expect(store.totals.get('p')?.events[binOf(20_000)]).toBe(MIN_COMPLETIONS);
    expect(store.totals.get('p')?.exposureMs.reduce((a, b) => a + b)).toBeCloseTo(
      MIN_COMPLETIONS * 10_000,
      3,
    );
  });

  it('counts no completion for a session whose previous poll it did not see', () => {
    const learning = new PollLearning({ store: new MemoryCompletionTimes(), now: clock });
    for (let i = 0; i < MIN_COMPLETIONS; i += 1) learning.completed(`s-${i}`, 'p', 30_000, 2);
    expect(learning.curve('p')).toBeUndefined();
  });

  it('counts a running time once when the polls of a session go to different workers', async () => {
    const store = new MemoryCompletionTimes();
    const workers = [0, 1].map(() => new PollLearning({ store, syncEveryMs: 1_000, now: clock }));
    // One session polled every 10 s, its polls going to the two workers in turn, done at 40 s.
    for (let poll = 0; poll < 4; poll += 1) workers[poll % 2]?.running('s', 'p', poll * 10_000, poll);
    workers[0]?.completed('s', 'p', 40_000, 4);
    await flush();
    now += 1_000;
    for (const worker of workers) worker.running('other', 'p', 0, 0);
    await flush();
    const exposure = store.totals.get('p')?.exposureMs.reduce((a, b) => a + b) ?? 0;
    expect(exposure).toBeLessThanOrEqual(40_000);
  });

  it('counts the pairs of polls that ran on one worker, whichever worker', async () => {
    const store = new MemoryCompletionTimes();
    const workers = [0, 1].map(() => new PollLearning({ store, syncEveryMs: 1_000, now: clock }));
    // Polls at 0 and 10 s on the first worker, 20 and 30 s on the second, done at 40 s there.
    for (let poll = 0; poll < 4; poll += 1) workers[poll < 2 ? 0 : 1]?.running('s', 'p', poll * 10_000, poll);
    workers[1]?.completed('s', 'p', 40_000, 4);
    await flush();
    now += 1_000;
    for (const worker of workers) worker.running('other', 'p', 0, 0);
    await flush();
    // 0 to 10 s, 20 to 30 s, and 30 s to the completion counted halfway to 40 s.
    expect(store.totals.get('p')?.exposureMs.reduce((a, b) => a + b)).toBe(25_000);
    expect(store.totals.get('p')?.events.reduce((a, b) => a + b)).toBe(1);
  });

  it('counts across a poll that found no turn, when both polls around it ran here', () => {
    const store = new MemoryCompletionTimes();
    const learning = new PollLearning({ store, syncEveryMs: 1_000, now: clock });
    for (let i = 0; i < MIN_COMPLETIONS; i += 1) {
      learning.running(`s-${i}`, 'p', 10_000, 1);
      learning.notPolled(`s-${i}`, 2);
      learning.completed(`s-${i}`, 'p', 30_000, 3);
    }
    expect(learning.curve('p')).toBeDefined();
  });

  it('places polls from what every worker saw, through the store', async () => {
    const store = new MemoryCompletionTimes();
    const first = new PollLearning({ store, syncEveryMs: 1_000, now: clock });
    const second = new PollLearning({ store, syncEveryMs: 1_000, now: clock });
    pollAll(first, MIN_COMPLETIONS);
    await flush();
    now += 1_000;
    first.running('x', 'p', 0, 0);
    await flush();
    expect(second.curve('p')).toBeUndefined();
    second.running('y', 'p', 0, 0);
    await flush();
    expect(second.curve('p')).toBeDefined();
  });

  it('keeps its counts while the store is away, says so once, and hands them over when it is back', async () => {
    const store = new MemoryCompletionTimes();
    const warnings: string[] = [];
    const learning = new PollLearning({
      store,
      syncEveryMs: 1_000,
      now: clock,
      warn: (m) => warnings.push(m),
    });
    store.failing = true;
    pollAll(learning, MIN_COMPLETIONS);
    for (let i = 0; i < 3; i += 1) {
      now += 1_000;
      learning.running('x', 'p', 0, 0);
      await flush();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('could not share completion times');
    expect(learning.curve('p')).toBeDefined();
    store.failing = false;
    now += 1_000;
    learning.running('x', 'p', 0, 0);
    await flush();
    expect(store.totals.get('p')?.events[binOf(20_000)]).toBe(MIN_COMPLETIONS);
  });

  it('runs a sync that fell due while another was under way once that one ends', async () => {
    const store = new MemoryCompletionTimes();
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const slow: CompletionTimesStore = {
      add: (counts) => store.add(counts),
      read: async () => (await held, store.read()),
    };
    const learning = new PollLearning({ store: slow, syncEveryMs: 1_000, now: clock });
    learning.running('x', 'p', 0, 0); // its sync's read is slow to answer
    pollAll(learning, MIN_COMPLETIONS);
    now += 1_000;
    // The last observation for a while, made while the first sync still waits on the store.
    learning.running('y', 'p', 0, 0);
    answer();
    await flush();
    await flush();
    expect(store.totals.get('p')?.events[binOf(20_000)]).toBe(MIN_COMPLETIONS);
  });

  it('gives up on a store that does not answer, says so, and syncs again later', async () => {
    jest.useFakeTimers();
    try {
      const store = new MemoryCompletionTimes();
      const hung = new Promise<never>(() => undefined);
      let calls = 0;
      const hanging: CompletionTimesStore = {
        add: () => ((calls += 1), hung),
        read: () => ((calls += 1), hung),
      };
      const warnings: string[] = [];
      const learning = new PollLearning({
        store: hanging,
        syncEveryMs: 1_000,
        now: clock,
        warn: (m) => warnings.push(m),
      });
      learning.running('x', 'p', 0, 0);
      await jest.advanceTimersByTimeAsync(10_000);
      expect(warnings).toEqual([expect.stringContaining('no answer')]);
      now += 1_000;
      learning.running('x', 'p', 1_000, 1);
      expect(calls).toBe(2);
      expect(store.totals.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
