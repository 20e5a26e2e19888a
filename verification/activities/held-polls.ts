import {
  ActivityCancelledError,
  ActivityNotFoundError,
  ActivityPausedError,
  ActivityResetError,
  type AsyncCompletionClient,
} from '@temporalio/client';

/**
 * What one poll of a held attempt came to: the outcome to complete the attempt with, the next
 * poll's delay, or nothing more to do (the attempt was cancelled or is gone: see `stillWanted`).
 */
export type PollStep<T> = { outcome: T } | { againMs: number; reason: string } | { unwanted: true };

/** How a poll of a held attempt is run. */
export interface HeldPollCall {
  signal: AbortSignal;
  /**
   * Asks the server whether the attempt is still wanted (a heartbeat): false when the workflow
   * cancelled it or it is gone (it is settled then). Asked before an outcome is acted on.
   */
  stillWanted: () => Promise<boolean>;
}

/** A poll activity's attempt handed to {@link HeldPolls} (it completes asynchronously). */
export interface HeldAttempt<T> {
  taskToken: Uint8Array;
  /** The number of the attempt's first poll (0 arms the first interval and makes no call). */
  poll: number;
  /** No poll of this attempt starts later than this (ms since the epoch): the attempt's bound less one poll's. */
  holdUntilMs: number;
  /** One poll: a step, or a failure to fail the attempt with (Temporal's retry policy takes it from there). */
  run: (poll: number, call: HeldPollCall) => Promise<PollStep<T>>;
  /** The failure that hands the attempt back to the server, its next attempt `delayMs` later. */
  handBack: (delayMs: number, reason: string) => Error;
}

/** What a held attempt records in its heartbeat for the next attempt: the number of its last poll. */
export interface HeldPollDetails {
  polls: number;
}

/** Options of {@link HeldPolls}. */
export interface HeldPollsOptions {
  /** Attempts held at once; more run as one poll per attempt. @default 50_000 */
  max?: number;
  /** Told when an attempt could not be completed or handed back (the server retries it at its bound). */
  warn?: (message: string) => void;
}

interface Held {
  attempt: HeldAttempt<unknown>;
  timer: NodeJS.Timeout | undefined;
  /** When the next poll is due (ms since the epoch), while one waits. */
  dueAtMs: number;
  /** The number of the last poll started (the next attempt goes on after it). */
  made: number;
  /** Aborts the poll under way when the attempt is handed back. */
  readonly abort: AbortController;
}

/** How long a worker's release may take to hand its held attempts back before it lets them go. */
const RELEASE_BOUND_MS = 15_000;
/** Hand-backs sent at once while releasing. */
const RELEASE_BATCH = 100;

/**
 * A worker's held poll attempts. A poll activity's attempt, instead of ending after one GetSession
 * with the next poll as its retry, is completed asynchronously and held here between its polls
 * (its task token, a timer and its plan: no activity slot, no SDK state), so one activity task
 * carries every poll that fits in its start-to-close timeout. Once the next poll would start past
 * that bound, and when the worker stops, the attempt is handed back to the server with the next
 * poll's delay as its retry delay (its heartbeat carrying the poll count to the next attempt), as
 * a poll of one call per attempt is. An attempt lost with a crashed worker is retried by the
 * server at its start-to-close timeout.
 *
 * A held attempt heartbeats only before it acts on an outcome (a cancelled one then reports the
 * cancel and fetches nothing) and when it is handed back: a heartbeat costs about as much worker
 * CPU as the call it would guard. So an attempt the workflow cancelled while its session still
 * runs (a redirect restarts the poll) keeps polling, at most until its bound, before it learns so.
 */
export class HeldPolls {
  readonly #held = new Set<Held>();
  readonly #max: number;
  readonly #warn: (message: string) => void;
  #client: AsyncCompletionClient | undefined;

  constructor(options: HeldPollsOptions = {}) {
    this.#max = options.max ?? 50_000;
    this.#warn = options.warn ?? (() => undefined);
  }

  /** The worker runs: attempts may be held, completed through its client. */
  open(client: AsyncCompletionClient): void {
    this.#client = client;
  }

  /** True when another attempt can be held (the worker runs and there is room). */
  get accepting(): boolean {
    return this.#client !== undefined && this.#held.size < this.#max;
  }

  /** How many attempts are held now. */
  get size(): number {
    return this.#held.size;
  }

  /** Holds an attempt (see {@link accepting}); its first poll runs at once. */
  hold<T>(attempt: HeldAttempt<T>): void {
    const held: Held = {
      attempt,
      timer: undefined,
      dueAtMs: Date.now(),
      made: attempt.poll - 1,
      abort: new AbortController(),
    };
    this.#held.add(held);
    held.timer = setTimeout(() => void this.#poll(held, attempt.poll), 0);
  }

  /**
   * The worker stopped: every held attempt is handed back to the server (a poll under way is
   * aborted; its attempt comes back at once), so another worker goes on with it now rather than
   * at its timeout.
   */
  async release(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    const all = [...this.#held];
    this.#held.clear();
    if (!client) return;
    const now = Date.now();
    for (const held of all) {
      clearTimeout(held.timer);
      held.abort.abort();
    }
    const handBacks = (async () => {
      for (let i = 0; i < all.length; i += RELEASE_BATCH)
        await Promise.all(
          all
            .slice(i, i + RELEASE_BATCH)
            .map((held) =>
              this.#handBack(client, held, Math.max(0, held.dueAtMs - now), 'the worker stopped').catch(
                () => undefined,
              ),
            ),
        );
    })();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'bound'>(
      (resolve) => (timer = setTimeout(() => resolve('bound'), RELEASE_BOUND_MS)),
    );
    try {
      if ((await Promise.race([handBacks.then(() => 'done' as const), bound])) === 'bound')
        this.#warn(
          `held polls not all handed back within ${RELEASE_BOUND_MS} ms: the server retries the rest at their timeout`,
        );
    } finally {
      clearTimeout(timer);
    }
  }

  /** The client to act on `held` with, while it is still this worker's (not released, settled or dropped). */
  #ours(held: Held): AsyncCompletionClient | undefined {
    return this.#held.has(held) ? this.#client : undefined;
  }

  async #poll(held: Held, poll: number): Promise<void> {
    held.timer = undefined;
    held.made = poll;
    const { attempt } = held;
    let step: PollStep<unknown>;
    try {
      step = await attempt.run(poll, {
        signal: held.abort.signal,
        stillWanted: () => this.#stillWanted(held),
      });
    } catch (error) {
      return this.#settle(held, (client) => client.fail(attempt.taskToken, error));
    }
    if ('unwanted' in step) return;
    if ('outcome' in step)
      return this.#settle(held, (client) => client.complete(attempt.taskToken, step.outcome));
    const now = Date.now();
    if (now + step.againMs > attempt.holdUntilMs)
      return this.#settle(held, (client) => this.#handBack(client, held, step.againMs, step.reason));
    if (!this.#ours(held)) return;
    held.dueAtMs = now + step.againMs;
    held.timer = setTimeout(() => void this.#poll(held, poll + 1), step.againMs);
  }

  /** A heartbeat: false (and the attempt settled) when the workflow cancelled it or it is gone. */
  async #stillWanted(held: Held): Promise<boolean> {
    const client = this.#ours(held);
    if (!client) return false;
    const { taskToken } = held.attempt;
    const details: HeldPollDetails = { polls: held.made };
    try {
      await client.heartbeat(taskToken, details);
      return true;
    } catch (error) {
      if (error instanceof ActivityCancelledError)
        await this.#settle(held, (c) => c.reportCancellation(taskToken));
      else if (error instanceof ActivityNotFoundError) this.#held.delete(held);
      else if (error instanceof ActivityPausedError || error instanceof ActivityResetError)
        await this.#settle(held, (c) => c.fail(taskToken, held.attempt.handBack(0, 'paused or reset')));
      // The server could not be asked: the outcome is acted on (a late answer is dropped).
      else return true;
      return false;
    }
  }

  /** Hands the attempt back: its poll count for the next attempt, then its retry `delayMs` later. */
  async #handBack(client: AsyncCompletionClient, held: Held, delayMs: number, reason: string): Promise<void> {
    const { taskToken, handBack } = held.attempt;
    const details: HeldPollDetails = { polls: held.made };
    try {
      await client.heartbeat(taskToken, details);
    } catch (error) {
      // Cancelled meanwhile: said so, not retried. Gone: nothing to hand back. Otherwise (paused,
      // reset, not reached) it is handed back all the same.
      if (error instanceof ActivityCancelledError) return client.reportCancellation(taskToken);
      if (error instanceof ActivityNotFoundError) return;
    }
    await client.fail(taskToken, handBack(delayMs, reason));
  }

  /** Ends the attempt at the server (completed, failed, handed back or cancelled) and lets it go. */
  async #settle(held: Held, call: (client: AsyncCompletionClient) => Promise<void>): Promise<void> {
    const client = this.#ours(held);
    if (!client) return;
    this.#held.delete(held);
    try {
      await call(client);
    } catch (error) {
      // Not found or cancelled: the attempt ended meanwhile (the workflow closed or cancelled it,
      // or the attempt timed out).
      if (!(error instanceof ActivityNotFoundError || error instanceof ActivityCancelledError))
        this.#warn(
          `a held poll could not be settled (the server retries it at its timeout): ${error instanceof Error ? error.message : String(error)}`,
        );
    }
  }
}
