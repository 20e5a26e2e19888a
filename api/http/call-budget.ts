/**
 * Who waits for whom under the budget: `user` calls (a returning user's check and the results
 * fetched along with it, the caller's step refresh, a native challenge's answer: a person waits
 * on the page or the device for them) before `first` calls (a create, a
 * results fetch, a cancel, a redaction), and both before any `poll`. A return is one or two
 * calls, so it costs the creates queued in a burst of starts a turn or two, where behind them it
 * waited for the whole queue. `user` calls take at most {@link USER_CAP_SHARE} of a window,
 * shared fairly by their target, so a caller that keeps asking cannot take every turn.
 */
export type CallPriority = 'user' | 'first' | 'poll';

/** The priorities, most urgent first. */
const PRIORITIES: readonly CallPriority[] = ['user', 'first', 'poll'];

/**
 * The most of each window `user` calls take (at least one turn): they go first, so without a cap
 * a caller that keeps asking (a step refreshed in a loop, returns signalled over and over) would
 * take every turn, and every other verification's creates, cancels and polls would wait. Most of
 * the window, not half of it: returns come in bursts (bench:returns, 1,000 verifications at 25
 * calls/s: up to 21 `user` calls in one window, a check and its results each), and at half of
 * it a return waited up to a second for its turn at p99.
 */
export const USER_CAP_SHARE = 0.8;

/**
 * The least of each window left to calls other than `user` ones (at least one turn), however
 * many `user` calls wait: creates, cancels, redactions and the sweep's listing go on while people
 * keep asking (a worker's part of 5 calls/s would otherwise leave them none).
 */
export const OTHERS_FLOOR_SHARE = 0.25;

/** Calls per second a worker makes to the identity service unless configured otherwise (`IDV_API_RATE`). */
export const DEFAULT_API_RATE = 25;
/** The longest pause 429s impose, whatever their `Retry-After` says. */
export const MAX_PAUSE_MS = 60_000;
/** The longest delay between two polls of a session the budget asks for. */
export const MAX_POLL_DELAY_MS = 10 * 60_000;
/**
 * A placed poll comes at most this many times the fixed rule's delay after the last: where the
 * curve says completions are unlikely (often where it saw few), a completion still waits at most
 * a few of the rule's delays.
 */
export const MAX_PLACED_STRETCH = 3;
/**
 * How 429s tighten the budget, from the 429s and the calls granted in the last
 * {@link REFUSAL_WINDOW_MS} (at least {@link MIN_REFUSALS} 429s, or nothing changes: its call
 * waits out its own `Retry-After`):
 * - at least this share of the calls refused: the process is over the service's limit; every call
 *   pauses until the longest `Retry-After` of the window and the limit is halved. The window's
 *   429s are then forgotten (its calls still count), and 429s of calls sent before the halving
 *   are not counted: one overload halves once for what it refused;
 * - fewer: the process may be a little over, as easing to 80 % would fix (or the refusals are
 *   another client's burst, a fault): the ceiling of the limit eases by one call per second, once per window, down to
 *   {@link EASE_FLOOR} of the configured rate, so that passing refusals cannot collapse it
 *   (halving on each of 5 % of 429s held 25/s near 1/s). The ceiling grows back by one per
 *   window without a 429.
 * After a halving the limit grows back to the ceiling by a tenth of the rate every
 * `recoverEveryMs`.
 */
export const OVERLOAD_SHARE = 0.2;
/** See {@link OVERLOAD_SHARE}. */
export const MIN_REFUSALS = 3;
/** See {@link OVERLOAD_SHARE}. */
export const REFUSAL_WINDOW_MS = 10_000;
/** See {@link OVERLOAD_SHARE}. */
export const EASE_FLOOR = 0.8;
/** How long a session seen done is remembered, so that a poll attempt under way then does not count it again. */
const ENDED_MEMORY_MS = MAX_POLL_DELAY_MS;
/** The counts of {@link REFUSAL_WINDOW_MS} are kept per this many ms. */
const REFUSAL_BUCKET_MS = 100;

/** Options of {@link CallBudget}; defaults are resolved in its constructor only. */
export interface CallBudgetOptions {
  /** Calls granted in any window of 1.1 s (a whole number, at least 1; a fraction is rounded down). */
  callsPerSecond: number;
  /**
   * Share of the budget polls may take (0 to 1): a window holds at most this share of the limit
   * in polls (rounded down, at least one), so the rest stays free for `user` and `first` calls,
   * granted at once; the fair poll interval plans for that part, less what the other calls take
   * of the window. @default 0.8
   */
  pollShare?: number;
  /**
   * Share of the budget kept for `user` calls (0 to under 0.5): another call is granted only while
   * the window holds fewer calls in all, `user` ones too, than the limit less this share of it
   * (rounded, so 0.1 keeps none under 5 calls/s), or while the other calls hold less than their
   * floor ({@link OTHERS_FLOOR_SHARE}). That many turns stay free for the next person however
   * many `user` calls the window holds already, so a returning user's check finds a turn at once
   * while a burst of creates and polls fills the rest. @default 0.1
   */
  userShare?: number;
  /** After 429s halved it (see {@link OVERLOAD_SHARE}), the limit grows back by a tenth of `callsPerSecond` this often without another halving. @default 5_000 */
  recoverEveryMs?: number;
  /** A monotonic clock in ms (a wall clock stepping back would stall every call). @default performance.now */
  now?: () => number;
}

/** What {@link CallBudget.stats} reports. */
export interface CallBudgetStats {
  /** The configured calls per second. */
  callsPerSecond: number;
  /** The calls per second in force now (lower for a while after 429s, see {@link OVERLOAD_SHARE}). */
  currentLimit: number;
  /** Sessions the polls are spread across (seen by this process recently). */
  polledSessions: number;
  /** Calls waiting for their turn. */
  waiting: number;
  /** Calls granted since the start. */
  granted: number;
  /** This process's part of `callsPerSecond` in force now (all of it unless shared, see {@link CallBudget.share}; 0: every call held). */
  share: number;
}

/** What {@link CallBudget.share} sets: this process's part of a budget that several processes share. */
export interface BudgetShare {
  /** Calls per second this process may make (a whole number up to the budget's rate); 0 holds every call until the next share. */
  callsPerSecond: number;
  /** Sessions polled across every process of the budget (the polls are spread over all of them; never fewer than this process awaits); 0: those whose next poll this process awaits, times `workers`. */
  polledSessions: number;
  /** The part holds until then (the budget's clock, {@link CallBudget.now}); every call is held after it until the next share. @default forever */
  validUntil?: number;
  /** Processes sharing the rate (see {@link CallBudget.turnLostDelayMs}). @default 1 */
  workers?: number;
}

/** Calls granted and 429s in a stretch of time, and the longest `Retry-After` of those 429s. */
interface Counts {
  granted: number;
  /** Of those, polls. */
  polls: number;
  refused: number;
  retryAfterMs: number;
}

/**
 * Where a provider's completions are likely (`verification/domain/inspection-curve.ts`): polls
 * are placed with a density proportional to its weight.
 */
export interface PlacementCurve {
  /** The density's weight at an age (ms after the verification started). */
  weight(ageMs: number): number;
  /** The age after `ageMs` by which the integral of {@link weight} has grown by `step`. */
  ageAfter(ageMs: number, step: number): number;
}

/** A session whose polls follow its provider's learned curve (see {@link CallBudget.pollDelayMs}). */
export interface PollPlacement {
  curve: PlacementCurve;
  /** How long the verification has run, ms. */
  ageMs: number;
  /** The shortest delay to give. */
  floorMs: number;
  /** The session's own interval by the fixed rule at an age (before the budget stretches it). */
  ruleMs: (ageMs: number) => number;
}

/** A polled session as the budget plans for it. */
interface PolledSession {
  /** When it said it would poll again (the budget's clock). */
  returnsAt: number;
  /** Its learned placement, and when its verification started (the budget's clock). */
  placement?: Pick<PollPlacement, 'curve' | 'ruleMs'>;
  bornAt: number;
  /** Counted in the sums of the placed sessions (see {@link CallBudget.pollDelayMs}) since the last prune. */
  summed: boolean;
  /**
   * Its delay was stretched by the fair delay (see {@link CallBudget.pollSooner}): its own
   * interval, the rule's delay it was planned from (the fair one), and the earliest its next
   * poll may come (the budget's clock).
   */
  stretch?: { ownMs: number; ruleMs: number; notBefore: number };
}

interface Waiter {
  priority: CallPriority;
  /** Whose call it is (`user` calls are shared fairly by it: see {@link CallBudget.acquire}). */
  key?: string;
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
 * A placed session this late for its announced poll no longer counts in the placement's sums:
 * with several workers its poll went to another. Longer than a poll's wait for its turn (2 s)
 * and a task's dispatch under load.
 */
export const PLACED_LATE_MS = 5_000;
/**
 * A poll planned under a fair delay comes sooner once the fair delay has fallen to this part of
 * it (see {@link CallBudget.pollSooner}): not for every small change in the other calls' turns.
 */
export const SOONER_SHARE = 0.8;
/** A poll is brought sooner only when that gains at least this much. */
const SOONER_GAIN_MS = 1_000;

/**
 * A limit on calls per second to a service, shared by every caller in the process: at most
 * `limit` calls start in any window of 1.1 s (a sliding window, so no burst doubles it),
 * `user` calls are granted before `first` ones, and those before polls, each kind within its part
 * of the window (`userShare`, `pollShare`; `user` calls at most {@link USER_CAP_SHARE} of it,
 * fairly by target), and 429s tighten the limit for a while (see
 * {@link OVERLOAD_SHARE}). Several processes share one rate through {@link share} (each its
 * part). It also spreads polls fairly: {@link pollDelayMs} stretches each session's interval so
 * that all the sessions polled fit in the rate.
 */
export class CallBudget {
  readonly #rate: number;
  /** This process's part of the rate: the window, the ceiling and the recovery work from it. */
  #share: number;
  /** Sessions polled through every process sharing the rate, as last told. */
  #sharedSessions = 0;
  /** Processes sharing the rate, as last told. */
  #workers = 1;
  /** Sessions whose announced return has not come yet, as of the last prune: polls certainly still due. */
  #awaited = 0;
  /** The share holds until then; after it every call is held until the next share. */
  #shareValidUntil = Number.POSITIVE_INFINITY;
  readonly #pollShare: number;
  readonly #userShare: number;
  readonly #recoverEveryMs: number;
  readonly #now: () => number;
  /** Start times of the calls granted in the last window, oldest first. */
  readonly #recent: number[] = [];
  /** Of those, the polls'. */
  readonly #recentPolls: number[] = [];
  /** Of those, the calls other than `user` ones'. */
  readonly #recentOthers: number[] = [];
  /** Of those, the `user` calls'. */
  readonly #recentUsers: number[] = [];
  /** The keys of those `user` calls, in the same order (see {@link acquire}). */
  readonly #recentUserKeys: Array<string | undefined> = [];
  /** When the last poll was granted (see {@link #pollSpacingMs}). */
  #lastPollAt = Number.NEGATIVE_INFINITY;
  /** The last call granted was a `user` one (see {@link #take}: a window of one turn alternates). */
  #lastWasUser = false;
  /** The turn the last poll sent back after losing its turn was given (see {@link turnLostDelayMs}). */
  #lostTurnAt = Number.NEGATIVE_INFINITY;
  /** The calls waiting for a turn, by priority (each in the order they asked). */
  readonly #waiting: Record<CallPriority, Waiter[]> = { user: [], first: [], poll: [] };
  /** Each polled session: when it said it would poll again, and how it is placed. */
  readonly #sessions = new Map<string, PolledSession>();
  /**
   * Over the sessions placed by a curve, as last summed: their polls per ms by the fixed rule
   * (r), and the sum of r × their curve's weight at their age (w).
   */
  #placed = { ruleRate: 0, weighted: 0 };
  /** The fair delay as of the last prune (see {@link pollSooner}). */
  #fairAtPrune = Number.POSITIVE_INFINITY;
  #limit: number;
  #pausedUntil = 0;
  /** Since when the limit grows back (the last halving, then each step of growth). */
  #recoveringSince = 0;
  /** The highest the limit may grow back to: the rate, eased by passing 429s. */
  #ceiling: number;
  /** Since when the ceiling grows back (the last 429, then each step of growth). */
  #ceilingSince = Number.NEGATIVE_INFINITY;
  /** Sessions seen done, and when: not registered again by a poll attempt that was under way. */
  readonly #ended = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #prunedAt = 0;
  #granted = 0;
  /** Calls granted and 429s, per {@link REFUSAL_BUCKET_MS}, over the last {@link REFUSAL_WINDOW_MS}. */
  readonly #answers = new Map<number, Counts>();
  #easedAt = Number.NEGATIVE_INFINITY;
  #tightenedAt = Number.NEGATIVE_INFINITY;

  constructor(options: CallBudgetOptions) {
    if (!Number.isFinite(options.callsPerSecond) || options.callsPerSecond < 1)
      throw new RangeError('callsPerSecond must be a number of at least 1');
    const pollShare = options.pollShare ?? 0.8;
    if (!(pollShare > 0 && pollShare <= 1)) throw new RangeError('pollShare must be above 0 and at most 1');
    const userShare = options.userShare ?? 0.1;
    if (!(userShare >= 0 && userShare < 0.5))
      throw new RangeError('userShare must be at least 0 and under 0.5');
    const recoverEveryMs = options.recoverEveryMs ?? 5_000;
    if (!(recoverEveryMs >= 1)) throw new RangeError('recoverEveryMs must be at least 1');
    this.#rate = Math.floor(options.callsPerSecond);
    this.#share = this.#rate;
    this.#limit = this.#rate;
    this.#ceiling = this.#rate;
    this.#pollShare = pollShare;
    this.#userShare = userShare;
    this.#recoverEveryMs = recoverEveryMs;
    this.#now = options.now ?? (() => performance.now());
    this.#recoveringSince = this.#now();
  }

  /**
   * Waits for this call's turn. Resolves true when it may start, false when `maxWaitMs` passed
   * first (the caller does not call); rejects with the signal's reason when it is aborted.
   * `user` calls waiting past their cap are granted fairly by `key` (the call's target): the
   * waiting call whose key had the fewest turns in the window goes first, so a caller that keeps
   * asking for one session waits behind every other person's call.
   */
  acquire(
    priority: CallPriority,
    options: { signal?: AbortSignal | undefined; maxWaitMs?: number; key?: string } = {},
  ): Promise<boolean> {
    const { signal, maxWaitMs, key } = options;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const queue = this.#waiting[priority];
    // Granted at once unless a call as urgent or more waits already.
    const ahead = PRIORITIES.slice(0, PRIORITIES.indexOf(priority) + 1);
    if (ahead.every((each) => this.#waiting[each].length === 0) && this.#take(priority, key))
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
        ...(key === undefined ? {} : { key }),
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
   * The service answered 429 to a call granted at `sentAt` (see {@link now}; a second ago when
   * not given): tightens the limit when the 429s of the last {@link REFUSAL_WINDOW_MS} call for it
   * (see {@link OVERLOAD_SHARE}). Over the service's limit, no call starts before the window's
   * longest `retryAfterMs` (a second without one, a minute at the most) and the limit is halved.
   */
  throttled(retryAfterMs: number | undefined, sentAt?: number): void {
    const now = this.#now();
    this.#recover(now);
    // A call sent before the last halving was refused for the overload that caused it.
    if ((sentAt ?? now - SECOND_MS) <= this.#tightenedAt) return;
    const bucket = this.#bucket(now);
    bucket.refused += 1;
    bucket.retryAfterMs = Math.max(bucket.retryAfterMs, retryAfterMs ?? SECOND_MS);
    this.#ceilingSince = now;
    const counts = this.#counts(now);
    if (counts.refused < MIN_REFUSALS) return;
    if (counts.refused >= OVERLOAD_SHARE * counts.granted) {
      const pauseMs = Math.min(MAX_PAUSE_MS, Math.max(0, counts.retryAfterMs));
      this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
      this.#limit = Math.max(1, Math.floor(this.#limit / 2));
      for (const each of this.#answers.values()) {
        each.refused = 0;
        each.retryAfterMs = 0;
      }
      this.#tightenedAt = now;
      this.#recoveringSince = now;
      this.#schedule();
    } else if (now - this.#easedAt >= REFUSAL_WINDOW_MS) {
      this.#easedAt = now;
      this.#ceiling = Math.max(Math.floor(this.#share * EASE_FLOOR), this.#ceiling - 1, 1);
      this.#limit = Math.min(this.#limit, this.#ceiling);
    }
  }

  /** The budget's clock (monotonic ms): a call's turn, to hand to {@link throttled}. */
  now(): number {
    return this.#now();
  }

  /** How long every call is paused still (after 429s said the process was over the limit). */
  pausedForMs(): number {
    return Math.max(0, this.#pausedUntil - this.#now());
  }

  /**
   * The delay before `sessionId` is polled again. By the fixed rule: its own interval, or longer
   * (up to ten minutes) when the sessions polled through this process would otherwise need more
   * than the poll turns the other calls leave of the budget's poll share of its configured rate.
   * With a `placement`, the polls the rule would make for the placed sessions together (R, the
   * sum of their rule rates r) are spread over them with a density proportional to r × the
   * curve's weight w: a session's next poll comes when the integral of its curve's weight from
   * its age has grown by Σ r·w / (R · r). A flat curve gives each session its rule delay, and the
   * total stays the rule's; each delay is at most {@link MAX_PLACED_STRETCH} times its rule delay
   * but at least `floorMs` (and at most ten minutes). The session counts until a while after
   * that return; {@link forget} it when it needs no more polls.
   */
  pollDelayMs(sessionId: string, ownIntervalMs: number, placement?: PollPlacement): number {
    const now = this.#now();
    this.#prune(now);
    const own = placement ? placement.ruleMs(placement.ageMs) : ownIntervalMs;
    const fairMs = this.#fairDelayOf(sessionId);
    const ruleDelay = Math.max(own, fairMs);
    const delay = Math.round(placement ? this.#placedDelay(sessionId, ruleDelay, placement) : ruleDelay);
    const stretch =
      fairMs > own
        ? { ownMs: own, ruleMs: ruleDelay, notBefore: now + (placement ? placement.floorMs : own) }
        : undefined;
    this.#plan(sessionId, now, delay, placement, stretch);
    return delay;
  }

  /**
   * A shorter delay before `sessionId`'s next poll, due in `leftMs`, when the fair delay that
   * stretched it fell: once the rule's delay it gives now (its own interval, or the fair delay if
   * longer) is {@link SOONER_SHARE} of the one it was planned from or less, what is left is
   * shortened in that proportion (never before its own interval, or its placement's floor, from
   * when it was planned). Polls planned while a burst of other calls took their turns (planned
   * for half the polls' part) would otherwise leave the turns freed once the burst is over
   * unused for a whole delay, minutes at many open sessions; shortened in proportion, the polls
   * to come keep their order and spread, at the density the turns now allow. Fewer calls granted
   * are not turns freed while 429s tightened the limit or pause every call, while first calls
   * wait for the part, or while this process is held: its plan stands then, as it does when the
   * gain is under a second. Undefined when it stands; otherwise the session counts as polled
   * after the delay returned.
   */
  pollSooner(sessionId: string, leftMs: number): number | undefined {
    const now = this.#now();
    this.#recover(now);
    this.#prune(now);
    const session = this.#sessions.get(sessionId);
    const stretch = session?.stretch;
    if (!session || !stretch || this.#partFull() || this.#shareInForce(now) === 0) return undefined;
    const ruleMs = Math.max(stretch.ownMs, this.#fairAtPrune);
    if (!(ruleMs <= stretch.ruleMs * SOONER_SHARE)) return undefined;
    const soonerMs = Math.max(stretch.notBefore - now, (leftMs * ruleMs) / stretch.ruleMs);
    if (!(soonerMs <= leftMs - SOONER_GAIN_MS)) return undefined;
    session.returnsAt = now + soonerMs;
    session.stretch = { ...stretch, ruleMs };
    return Math.round(soonerMs);
  }

  /**
   * The delay before a poll that was given no turn here tries again. Polls arrive in bunches
   * (their retries fall due together after a burst), so a part with room for every session in its
   * fair delay still turns some away: each comes back at a turn of its own once the polls waiting
   * now have had theirs (after the last such return, one poll spacing apart), so the bunch is
   * spread over the part rather than lost for a whole fair delay. Never later than the fair delay
   * (as {@link pollDelayMs} by the rule), divided, when several processes share the rate, by their
   * number (at most the rate): only this part was full, and Temporal may hand the next attempt to
   * any of them. Not while 429s tightened the limit or pause every call (the service was full),
   * nor while first calls wait (a burst of starts fills every part alike): then the whole fair
   * delay; nor while this process is held (no part, or it ran out): then the fair delay divided.
   * At least `ownIntervalMs` (a pause's Retry-After in it), the reserved turn too. Each retry is
   * one task, never a call beyond the budget.
   */
  turnLostDelayMs(sessionId: string, ownIntervalMs: number): number {
    const now = this.#now();
    this.#recover(now);
    this.#prune(now);
    const full = this.#partFull();
    const parts = full ? 1 : Math.max(1, Math.min(this.#workers, this.#rate));
    let delay = Math.max(ownIntervalMs, this.#fairDelayOf(sessionId) / parts);
    // Held (no part yet, or it ran out), this process has no turns to hand out: the others' may.
    if (!full && this.#shareInForce(now) > 0) {
      const spacing = this.#pollSpacingMs();
      const turnAt = Math.max(
        now + ownIntervalMs,
        now + this.#waiting.poll.length * spacing,
        this.#lostTurnAt + spacing,
      );
      if (turnAt - now < delay) {
        this.#lostTurnAt = turnAt;
        delay = turnAt - now;
      }
    }
    delay = Math.round(delay);
    // While the part is full for everyone, the whole fair delay: a poll that comes sooner once
    // it frees (see pollSooner).
    const stretched = full && delay > ownIntervalMs;
    this.#plan(
      sessionId,
      now,
      delay,
      undefined,
      stretched ? { ownMs: ownIntervalMs, ruleMs: delay, notBefore: now + ownIntervalMs } : undefined,
    );
    return delay;
  }

  /**
   * True while this part has no turn to spare whatever the polls' plan: 429s tightened the limit
   * or pause every call, or first calls wait for it (a burst of starts fills every part alike).
   */
  #partFull(): boolean {
    return this.#limit < this.#share || this.pausedForMs() > 0 || this.#urgentWaiting();
  }

  /** True when several processes share the rate: a poll that lost its turn here may find one in another's part. */
  get shared(): boolean {
    return this.#workers > 1;
  }

  #fairDelayOf(sessionId: string): number {
    const counted = this.#sessions.has(sessionId) || this.#ended.has(sessionId);
    return this.#fairDelay(counted ? 0 : 1);
  }

  /** Counts `sessionId` as polled again after `delay`. */
  #plan(
    sessionId: string,
    now: number,
    delay: number,
    placement?: PollPlacement,
    stretch?: PolledSession['stretch'],
  ): void {
    // A session seen done (by a check or a cancel while this poll was under way) stays forgotten.
    if (!this.#ended.has(sessionId))
      this.#sessions.set(sessionId, {
        returnsAt: now + delay,
        bornAt: now - (placement?.ageMs ?? 0),
        summed: this.#sessions.get(sessionId)?.summed ?? false,
        ...(placement ? { placement: { curve: placement.curve, ruleMs: placement.ruleMs } } : {}),
        ...(stretch ? { stretch } : {}),
      });
  }

  #placedDelay(sessionId: string, ruleDelay: number, placement: PollPlacement): number {
    const { curve, ageMs, floorMs } = placement;
    const rate = 1 / ruleDelay;
    // Sums as of the last prune (at most a window old); a session not in them adds its own.
    const summed = this.#sessions.get(sessionId)?.summed === true;
    const ruleRate = this.#placed.ruleRate + (summed ? 0 : rate);
    const weighted = this.#placed.weighted + (summed ? 0 : rate * curve.weight(ageMs));
    const step = weighted / (ruleRate * rate);
    const nextAge = Number.isFinite(step) && step > 0 ? curve.ageAfter(ageMs, step) : Number.NaN;
    const delay = Number.isFinite(nextAge) ? nextAge - ageMs : ruleDelay;
    // The floor wins over the stretch: a rule faster than the floor (a longest interval under the
    // first) must not pull a placed delay under it.
    return Math.min(MAX_POLL_DELAY_MS, Math.max(floorMs, Math.min(MAX_PLACED_STRETCH * ruleDelay, delay)));
  }

  /**
   * The delay that fits the sessions polled (all of them, when shared) in the poll turns planned
   * for (see {@link #plannedPollTurns}); `newSession`: one more, not counted yet.
   */
  #fairDelay(newSession: 0 | 1): number {
    const share = (this.#plannedPollTurns() * SECOND_MS) / WINDOW_MS;
    // Shared by several processes, the count across all of them plans for the whole rate: what
    // this process saw misses sessions polled only elsewhere, and keeps those another process
    // found done until their announced return. Only a count below the sessions whose next poll
    // this process announced is taken as lagging (visibility is eventually consistent). Without a
    // count, the sessions whose next poll this process awaits stand for their part: Temporal
    // hands each poll to any of the workers, so about 1/W of them are awaited here (those it
    // merely remembers were mostly polled since by another).
    const sessions =
      this.#sharedSessions > 0
        ? Math.max(this.#sharedSessions, this.#awaited)
        : this.#workers > 1
          ? (this.#awaited + newSession) * this.#workers
          : this.#sessions.size + newSession;
    return Math.min(MAX_POLL_DELAY_MS, (sessions / share) * SECOND_MS);
  }

  /**
   * The poll turns of a window (of the whole rate) polls are planned for: their part, less what
   * the other calls took over the last {@link REFUSAL_WINDOW_MS} beyond what the window leaves
   * them. Creates, results fetches, cancels and users' checks come before polls in the same
   * window: planned for the whole part while those took a third of it (bench:polls), polls
   * waited 1.9 s at the median for a turn and a quarter of the attempts found none. Never under
   * half the part: a burst of creates takes every turn for a while, and polls planned meanwhile
   * for none would wait minutes once it is over (the turns they lose then come back, see
   * {@link turnLostDelayMs}). With several processes, the others' calls are taken to be alike
   * (a held process counts its own calls only). Planned for each process's own window instead,
   * whose rounding leaves polls fewer turns, two and four workers found completions later
   * (bench:workers): the whole rate's part keeps a few polls waiting, and every turn used.
   */
  #plannedPollTurns(): number {
    const part = this.#pollPart(this.#rate);
    const counts = this.#counts(this.#now());
    const taken = ((counts.granted - counts.polls) * WINDOW_MS) / REFUSAL_WINDOW_MS;
    const processes = this.#share > 0 ? this.#rate / this.#share : 1;
    const left = this.#othersPart(this.#rate) - taken * processes;
    return Math.max(part / 2, Math.min(part, left));
  }

  /** The session needs no more polls (it ended): it no longer counts, nor will it again. */
  forget(sessionId: string): void {
    this.#sessions.delete(sessionId);
    this.#ended.set(sessionId, this.#now());
  }

  stats(): CallBudgetStats {
    const now = this.#now();
    this.#recover(now);
    this.#prune(now);
    return {
      callsPerSecond: this.#rate,
      currentLimit: Math.min(this.#limit, this.#shareInForce(now)),
      polledSessions: this.#sessions.size,
      waiting: PRIORITIES.reduce((sum, each) => sum + this.#waiting[each].length, 0),
      granted: this.#granted,
      share: this.#shareInForce(now),
    };
  }

  /**
   * Makes this process's part of the rate `callsPerSecond` (several processes share the budget)
   * until `validUntil`: the window grants at most that many calls per 1.1 s from now on (calls
   * granted before still count in it); 0, or a share past its `validUntil`, holds every call
   * until a later share. Polls are planned for the whole rate over `polledSessions`, since every
   * process runs some of every session's polls.
   */
  share(share: BudgetShare): void {
    const callsPerSecond = Math.floor(share.callsPerSecond);
    if (!(callsPerSecond >= 0 && callsPerSecond <= this.#rate))
      throw new RangeError(`a share must be from 0 to the rate (${this.#rate}) calls per second`);
    if (share.workers !== undefined && !Number.isFinite(share.workers))
      throw new RangeError('a share’s workers must be a number (0 counts as 1)');
    const now = this.#now();
    this.#recover(now);
    // What 429s took stays taken in proportion: the ceiling and the limit keep their ratio to the
    // share (a process that held starts afresh).
    const ceilingRatio = this.#share > 0 ? Math.min(1, this.#ceiling / this.#share) : 1;
    const limitRatio = this.#share > 0 ? Math.min(1, this.#limit / this.#share) : 1;
    const floor = Math.min(1, callsPerSecond);
    this.#share = callsPerSecond;
    this.#shareValidUntil = share.validUntil ?? Number.POSITIVE_INFINITY;
    this.#sharedSessions = Math.max(0, Math.floor(share.polledSessions));
    this.#workers = Math.max(1, Math.floor(share.workers ?? 1));
    this.#ceiling = Math.max(floor, Math.floor(callsPerSecond * ceilingRatio));
    this.#limit = Math.max(floor, Math.min(this.#ceiling, Math.floor(callsPerSecond * limitRatio)));
    this.#drain();
  }

  /** The share unless it ran out (then 0: held until the next share). */
  #shareInForce(now: number): number {
    return now < this.#shareValidUntil ? this.#share : 0;
  }

  /** Stops the timer; waiting calls are refused (they resolve false). */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const waiter of PRIORITIES.flatMap((each) => [...this.#waiting[each]])) waiter.grant(false);
  }

  /**
   * The polls a window may hold out of `limit` calls: the poll share (at least one), so the rest
   * stays free for first calls. Polls that queue take each turn as it frees (turns freed together
   * come back together a window later): without a part of their own, a first call waited up to a
   * whole window behind them.
   */
  #pollPart(limit: number): number {
    const others = this.#othersPart(limit);
    // At least one turn of the others' part stays free for first calls while users take none of
    // it (none is left at 1); users' calls come first, and the next poll's turn goes to a first
    // call waiting.
    return Math.max(1, Math.min(others - 1, Math.floor(limit * this.#pollShare)));
  }

  /**
   * The calls in all (`user` ones too) a window may hold out of `limit` when it grants another
   * kind: the rest stays free for a returning user's check. Creates queued in a burst of starts
   * take each turn as it frees, and turns freed together come back together a window later:
   * without turns kept, a return waited up to a whole window for its turn although first in
   * line. Counted against `user` calls too, the turns kept stay free while returns come faster
   * than they free (bench:returns: a return's two calls waited 0.5 s at p99 at 8 a second, when
   * the part counted the other calls only).
   */
  #othersPart(limit: number): number {
    return Math.max(1, limit - Math.round(limit * this.#userShare));
  }

  /** The turns of a window `user` calls never take from the others (see {@link OTHERS_FLOOR_SHARE}). */
  #othersFloor(limit: number): number {
    return Math.max(1, Math.floor(limit * OTHERS_FLOOR_SHARE));
  }

  /** Another call than a `user` one fits in the window now: below the others' part, or their floor. */
  #othersFit(limit: number): boolean {
    return (
      this.#recent.length < this.#othersPart(limit) || this.#recentOthers.length < this.#othersFloor(limit)
    );
  }

  /** The `user` calls a window may hold out of `limit` (see {@link USER_CAP_SHARE}), the others' floor left. */
  #userCap(limit: number): number {
    return Math.max(1, Math.min(Math.floor(limit * USER_CAP_SHARE), limit - this.#othersFloor(limit)));
  }

  /**
   * Polls are granted at least this far apart, evenly over the window: queued, they took each
   * turn as it freed, so turns freed together came back together a window later, the window
   * filled in one burst, and any other call waited up to a whole window for the next.
   */
  #pollSpacingMs(): number {
    return WINDOW_MS / this.#pollPart(this.#limit);
  }

  /** Drops from the window's records the calls granted before it. */
  #pruneWindow(now: number): void {
    for (const times of [this.#recent, this.#recentOthers, this.#recentPolls])
      while (times.length > 0 && (times[0] as number) <= now - WINDOW_MS) times.shift();
    while (this.#recentUsers.length > 0 && (this.#recentUsers[0] as number) <= now - WINDOW_MS) {
      this.#recentUsers.shift();
      this.#recentUserKeys.shift();
    }
  }

  /** Grants one call of `priority` now if the window, the polls' part of it and the pause allow it. */
  #take(priority: CallPriority, key?: string): boolean {
    const now = this.#now();
    this.#recover(now);
    if (now < this.#pausedUntil || this.#shareInForce(now) === 0) return false;
    this.#pruneWindow(now);
    if (this.#recent.length >= this.#limit) return false;
    if (priority === 'user' && this.#recentUsers.length >= this.#userCap(this.#limit)) return false;
    // A window of one turn has no room for both kinds: it alternates while a first call waits
    // (which fits whenever a user's call does, so the turn is never left unused).
    if (priority === 'user' && this.#limit <= 1 && this.#lastWasUser && this.#waiting.first.length > 0)
      return false;
    if (priority !== 'user' && !this.#othersFit(this.#limit)) return false;
    if (priority === 'poll') {
      if (this.#recentPolls.length >= this.#pollPart(this.#limit)) return false;
      if (now < this.#lastPollAt + this.#pollSpacingMs()) return false;
      this.#recentPolls.push(now);
      this.#lastPollAt = now;
    }
    if (priority === 'user') {
      this.#recentUsers.push(now);
      this.#recentUserKeys.push(key);
    } else this.#recentOthers.push(now);
    this.#lastWasUser = priority === 'user';
    this.#recent.push(now);
    this.#granted += 1;
    const bucket = this.#bucket(now);
    bucket.granted += 1;
    if (priority === 'poll') bucket.polls += 1;
    return true;
  }

  /** The most urgent call waiting, if any. */
  #next(): Waiter | undefined {
    for (const each of PRIORITIES) if (this.#waiting[each][0]) return this.#waiting[each][0];
    return undefined;
  }

  /**
   * Grants the most urgent call waiting whose turn is free now: a less urgent one goes only when
   * the more urgent ones' turns are not (users past their cap; a first call's turn is a poll's
   * too). False when none may start.
   */
  #grantNext(): boolean {
    for (const each of PRIORITIES) {
      const waiter = each === 'user' ? this.#fairestUser() : this.#waiting[each][0];
      if (waiter && this.#take(each, waiter.key)) {
        waiter.grant(true);
        return true;
      }
    }
    return false;
  }

  /** The `user` call waiting whose key had the fewest turns in the window (the oldest of those). */
  #fairestUser(): Waiter | undefined {
    const waiting = this.#waiting.user;
    if (waiting.length <= 1) return waiting[0];
    this.#pruneWindow(this.#now());
    const turns = new Map<string | undefined, number>();
    for (const key of this.#recentUserKeys) turns.set(key, (turns.get(key) ?? 0) + 1);
    let fairest = waiting[0] as Waiter;
    for (const waiter of waiting)
      if ((turns.get(waiter.key) ?? 0) < (turns.get(fairest.key) ?? 0)) fairest = waiter;
    return fairest;
  }

  /**
   * A call other than a poll waits for a turn the window does not have: not `user` calls held
   * only by their cap (a caller that keeps asking), while turns are free for the others.
   */
  #urgentWaiting(): boolean {
    if (this.#waiting.first.length > 0) return true;
    if (this.#waiting.user.length === 0) return false;
    this.#pruneWindow(this.#now());
    return this.#recentUsers.length < this.#userCap(this.#limit);
  }

  /** Hands out the turns that are free now, most urgent first, then arms the timer for the next. */
  #drain(): void {
    while (this.#grantNext());
    this.#schedule();
  }

  #schedule(): void {
    const now = this.#now();
    // Holding (no share, or it ran out): the next share drains.
    if (this.#next() === undefined || this.#shareInForce(now) === 0) return;
    /** When `times` holds fewer than `cap` calls of the window again. */
    const freeAt = (times: readonly number[], cap: number) =>
      times.length >= cap ? (times[times.length - cap] as number) + WINDOW_MS : now;
    // The next turn of a call waiting: a user's needs the window and the users' cap, a first
    // call's the others' part, a poll's the polls' part and its spacing as well.
    const turnAt = (priority: CallPriority) =>
      Math.max(
        freeAt(this.#recent, this.#limit),
        priority === 'user'
          ? freeAt(this.#recentUsers, this.#userCap(this.#limit))
          : Math.min(
              freeAt(this.#recent, this.#othersPart(this.#limit)),
              freeAt(this.#recentOthers, this.#othersFloor(this.#limit)),
            ),
        priority === 'poll'
          ? Math.max(
              freeAt(this.#recentPolls, this.#pollPart(this.#limit)),
              this.#lastPollAt + this.#pollSpacingMs(),
            )
          : now,
      );
    const windowFreeAt = Math.min(...PRIORITIES.filter((each) => this.#waiting[each].length > 0).map(turnAt));
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

  /** The counts of now's bucket, dropping the buckets that left {@link REFUSAL_WINDOW_MS}. */
  #bucket(now: number): Counts {
    const at = Math.floor(now / REFUSAL_BUCKET_MS);
    let bucket = this.#answers.get(at);
    if (!bucket) {
      for (const old of this.#answers.keys())
        if (old <= at - REFUSAL_WINDOW_MS / REFUSAL_BUCKET_MS) this.#answers.delete(old);
      bucket = { granted: 0, polls: 0, refused: 0, retryAfterMs: 0 };
      this.#answers.set(at, bucket);
    }
    return bucket;
  }

  /** Calls granted, 429s and their longest `Retry-After` in the last {@link REFUSAL_WINDOW_MS} (to a bucket). */
  #counts(now: number): Counts {
    const since = Math.floor(now / REFUSAL_BUCKET_MS) - REFUSAL_WINDOW_MS / REFUSAL_BUCKET_MS;
    const total: Counts = { granted: 0, polls: 0, refused: 0, retryAfterMs: 0 };
    for (const [at, counts] of this.#answers)
      if (at > since) {
        total.granted += counts.granted;
        total.polls += counts.polls;
        total.refused += counts.refused;
        total.retryAfterMs = Math.max(total.retryAfterMs, counts.retryAfterMs);
      }
    return total;
  }

  /**
   * The ceiling grows back by one per {@link REFUSAL_WINDOW_MS} without a 429; the limit grows
   * back to it by a tenth of the rate per `recoverEveryMs` without a halving.
   */
  #recover(now: number): void {
    if (this.#ceiling < this.#share) {
      const steps = Math.floor((now - this.#ceilingSince) / REFUSAL_WINDOW_MS);
      if (steps > 0) {
        this.#ceiling = Math.min(this.#share, this.#ceiling + steps);
        this.#ceilingSince += steps * REFUSAL_WINDOW_MS;
      }
    }
    if (this.#limit >= this.#ceiling) {
      this.#limit = this.#ceiling;
      this.#recoveringSince = Math.max(this.#recoveringSince, now - this.#recoverEveryMs);
      return;
    }
    const periods = Math.floor((now - this.#recoveringSince) / this.#recoverEveryMs);
    if (periods <= 0) return;
    this.#limit = Math.min(this.#ceiling, this.#limit + periods * Math.max(1, Math.ceil(this.#share / 10)));
    this.#recoveringSince += periods * this.#recoverEveryMs;
  }

  /**
   * Drops sessions well past their announced return (they ended elsewhere or were forgotten), and
   * sums the placed ones.
   */
  #prune(now: number): void {
    if (now - this.#prunedAt < WINDOW_MS) return;
    this.#prunedAt = now;
    for (const [sessionId, endedAt] of this.#ended)
      if (endedAt + ENDED_MEMORY_MS < now) this.#ended.delete(sessionId);
    let awaited = 0;
    for (const [sessionId, session] of this.#sessions) {
      if (session.returnsAt + RETURN_GRACE_MS < now) this.#sessions.delete(sessionId);
      else if (session.returnsAt > now) awaited += 1;
    }
    this.#awaited = awaited;
    const fair = this.#fairDelay(0);
    this.#fairAtPrune = fair;
    // Only the sessions whose next poll is still to come, or late by a little (its turn, its
    // task): one long past its announced return was polled since by another worker (or found
    // done there), and counting it on, at the ages it would have reached, would weigh the sums
    // toward the sessions polled often.
    const placed = { ruleRate: 0, weighted: 0 };
    for (const session of this.#sessions.values()) {
      session.summed = session.placement !== undefined && session.returnsAt + PLACED_LATE_MS > now;
      if (!session.summed || !session.placement) continue;
      const age = now - session.bornAt;
      const rate = 1 / Math.max(session.placement.ruleMs(age), fair);
      placed.ruleRate += rate;
      placed.weighted += rate * session.placement.curve.weight(age);
    }
    this.#placed = placed;
  }
}
