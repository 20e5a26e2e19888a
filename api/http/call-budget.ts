/**
 * Who waits for whom under the budget: `first` calls (a create, a redirect check, a results
 * fetch, a cancel, a redaction) are granted before any `poll`.
 */
export type CallPriority = 'first' | 'poll';

/** Calls per second a worker makes to the identity service unless configured otherwise (`IDV_API_RATE`). */
export const DEFAULT_API_RATE = 25;
/** The longest pause a 429 imposes, whatever its `Retry-After` says (the next 429 pauses again). */
export const MAX_PAUSE_MS = 60_000;
/** The longest delay between two polls of a session the budget asks for. */
export const MAX_POLL_DELAY_MS = 10 * 60_000;

/** Options of {@link CallBudget}; defaults are resolved in its constructor only. */
export interface CallBudgetOptions {
  /** Calls granted in any window of one second (a whole number, at least 1; a fraction is rounded down). */
  callsPerSecond: number;
  /** Share of the budget the fair poll interval plans for (0 to 1); the rest stays free for `first` calls. @default 0.8 */
  pollShare?: number;
  /** After a 429, the budget is halved and grows back by a tenth of `callsPerSecond` this often. @default 5_000 */
  recoverEveryMs?: number;
  /** A monotonic clock in ms (a wall clock stepping back would stall every call). @default performance.now */
  now?: () => number;
}

/** What {@link CallBudget.stats} reports. */
export interface CallBudgetStats {
  /** The configured calls per second. */
  callsPerSecond: number;
  /** The calls per second in force now (lower for a while after a 429). */
  currentLimit: number;
  /** Sessions the polls are spread across (seen by this process recently). */
  polledSessions: number;
  /** Calls waiting for their turn. */
  waiting: number;
  /** Calls granted since the start. */
  granted: number;
}

interface Waiter {
  priority: CallPriority;
  grant: (granted: boolean) => void;
}

/**
 * The sliding window the limit counts in: a second and a tenth, so that the jitter between a
 * call's turn here and its arrival at the service (an event loop busy for a moment, a slow
 * connection) cannot put more than the limit into one of the service's seconds.
 */
export const BUDGET_WINDOW_MS = 1_100;
const WINDOW_MS = BUDGET_WINDOW_MS;
/** Fair poll delays are planned per second. */
const SECOND_MS = 1_000;
/** A session's poll registration outlives its announced return by this much. */
const RETURN_GRACE_MS = 30_000;

/**
 * A per-process limit on calls per second to a service, shared by every caller: at most
 * `limit` calls start in any one-second window (a sliding window, so no burst doubles it),
 * `first` calls are granted before polls, and a 429 with `Retry-After` pauses every call and
 * halves the limit for a while. It also spreads polls fairly: {@link pollDelayMs} stretches each
 * session's interval so that all the sessions polled through this process fit in its budget.
 */
export class CallBudget {
  readonly #rate: number;
  readonly #pollShare: number;
  readonly #recoverEveryMs: number;
  readonly #now: () => number;
  /** Start times of the calls granted in the last window, oldest first. */
  readonly #recent: number[] = [];
  readonly #first: Waiter[] = [];
  readonly #polls: Waiter[] = [];
  /** Each polled session and when it said it would poll again. */
  readonly #sessions = new Map<string, number>();
  #limit: number;
  #pausedUntil = 0;
  #lastHalvedAt = Number.NEGATIVE_INFINITY;
  /** Since when the limit grows back (the last 429, then each step of growth). */
  #recoveringSince = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #prunedAt = 0;
  #granted = 0;

  constructor(options: CallBudgetOptions) {
    if (!Number.isFinite(options.callsPerSecond) || options.callsPerSecond < 1)
      throw new RangeError('callsPerSecond must be a number of at least 1');
    const pollShare = options.pollShare ?? 0.8;
    if (!(pollShare > 0 && pollShare <= 1)) throw new RangeError('pollShare must be above 0 and at most 1');
    const recoverEveryMs = options.recoverEveryMs ?? 5_000;
    if (!(recoverEveryMs >= 1)) throw new RangeError('recoverEveryMs must be at least 1');
    this.#rate = Math.floor(options.callsPerSecond);
    this.#limit = this.#rate;
    this.#pollShare = pollShare;
    this.#recoverEveryMs = recoverEveryMs;
    this.#now = options.now ?? (() => performance.now());
    this.#recoveringSince = this.#now();
  }

  /**
   * Waits for this call's turn. Resolves true when it may start, false when `maxWaitMs` passed
   * first (the caller does not call); rejects with the signal's reason when it is aborted.
   */
  acquire(
    priority: CallPriority,
    options: { signal?: AbortSignal | undefined; maxWaitMs?: number } = {},
  ): Promise<boolean> {
    const { signal, maxWaitMs } = options;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const queue = priority === 'first' ? this.#first : this.#polls;
    if (this.#first.length === 0 && (priority === 'first' || this.#polls.length === 0) && this.#take())
      return Promise.resolve(true);
    return new Promise<boolean>((resolve, reject) => {
      let expiry: NodeJS.Timeout | undefined;
      const settle = () => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        if (expiry) clearTimeout(expiry);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        priority,
        grant: (granted) => {
          settle();
          resolve(granted);
        },
      };
      const onAbort = () => {
        settle();
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (maxWaitMs !== undefined) expiry = setTimeout(() => waiter.grant(false), maxWaitMs);
      queue.push(waiter);
      this.#schedule();
    });
  }

  /**
   * The service answered 429: no call starts before `retryAfterMs` (a second without it, a
   * minute at the most), and
   * the limit is halved (once however many 429s arrive within a second); it grows back while no
   * 429 comes.
   */
  throttled(retryAfterMs: number | undefined): void {
    const now = this.#now();
    this.#recover(now);
    const pauseMs = Math.min(MAX_PAUSE_MS, Math.max(0, retryAfterMs ?? SECOND_MS));
    this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
    // The 429s of calls already under way say the same thing: halve once per window.
    if (now - this.#lastHalvedAt >= SECOND_MS) {
      this.#limit = Math.max(1, Math.floor(this.#limit / 2));
      this.#lastHalvedAt = now;
    }
    this.#recoveringSince = now;
    this.#schedule();
  }

  /**
   * The delay before `sessionId` is polled again: its own interval, or longer (up to ten
   * minutes) when the sessions polled through this process would otherwise need more than the
   * budget's poll share of its configured rate. The
   * session counts until a while after that return; {@link forget} it when it needs no more polls.
   */
  pollDelayMs(sessionId: string, ownIntervalMs: number): number {
    const now = this.#now();
    this.#prune(now);
    // From the configured rate, not the limit in force: a delay is held at the server long after
    // a 429's halving has grown back; the pause and the window enforce the limit meanwhile.
    const share = this.#rate * this.#pollShare;
    const sessions = this.#sessions.size + (this.#sessions.has(sessionId) ? 0 : 1);
    const fair = Math.min(MAX_POLL_DELAY_MS, (sessions / share) * SECOND_MS);
    const delay = Math.round(Math.max(ownIntervalMs, fair));
    this.#sessions.set(sessionId, now + delay);
    return delay;
  }

  /** The session needs no more polls (it ended). */
  forget(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  stats(): CallBudgetStats {
    this.#recover(this.#now());
    return {
      callsPerSecond: this.#rate,
      currentLimit: this.#limit,
      polledSessions: this.#sessions.size,
      waiting: this.#first.length + this.#polls.length,
      granted: this.#granted,
    };
  }

  /** Stops the timer; waiting calls are refused (they resolve false). */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const waiter of [...this.#first, ...this.#polls]) waiter.grant(false);
  }

  /** Grants one call now if the window and the pause allow it. */
  #take(): boolean {
    const now = this.#now();
    this.#recover(now);
    if (now < this.#pausedUntil) return false;
    while (this.#recent.length > 0 && (this.#recent[0] as number) <= now - WINDOW_MS) this.#recent.shift();
    if (this.#recent.length >= this.#limit) return false;
    this.#recent.push(now);
    this.#granted += 1;
    return true;
  }

  /** Hands out the turns that are free now, first calls first, then arms the timer for the next. */
  #drain(): void {
    for (;;) {
      const next = this.#first[0] ?? this.#polls[0];
      if (!next || !this.#take()) break;
      next.grant(true);
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#first.length === 0 && this.#polls.length === 0) return;
    const now = this.#now();
    const windowFreeAt =
      this.#recent.length >= this.#limit
        ? (this.#recent[this.#recent.length - this.#limit] as number) + WINDOW_MS
        : now;
    const at = Math.max(now, this.#pausedUntil, windowFreeAt);
    if (this.#timer && this.#timerAt <= at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#drain();
      },
      Math.max(0, at - now),
    );
  }

  /** The limit grows back by a tenth of the rate per period without a 429. */
  #recover(now: number): void {
    if (this.#limit >= this.#rate) return;
    const periods = Math.floor((now - this.#recoveringSince) / this.#recoverEveryMs);
    if (periods <= 0) return;
    this.#limit = Math.min(this.#rate, this.#limit + periods * Math.max(1, Math.ceil(this.#rate / 10)));
    this.#recoveringSince += periods * this.#recoverEveryMs;
  }

  /** Drops sessions well past their announced return (they ended elsewhere or were forgotten). */
  #prune(now: number): void {
    if (now - this.#prunedAt < WINDOW_MS) return;
    this.#prunedAt = now;
    for (const [sessionId, returnsAt] of this.#sessions)
      if (returnsAt + RETURN_GRACE_MS < now) this.#sessions.delete(sessionId);
  }
}
