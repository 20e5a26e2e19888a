import { AsyncResource } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ActivityCancelledError,
  ActivityNotFoundError,
  ActivityPausedError,
  ActivityResetError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { grpcStatus, grpcStatusOf } from '../../common/grpc-status';
import { type AttemptServer, type HeldPollDetails } from './attempt-server';

/**
 * What one poll of a held attempt came to: the outcome to complete the attempt with, the next
 * poll's delay (`handBack`: through the server, so any worker may make it), or nothing more to do
 * (the attempt was cancelled or is gone: see {@link HeldPollCall.stillWanted}).
 */
export type PollStep<T> =
  { outcome: T } | { againMs: number; reason: string; handBack?: true } | { unwanted: true };

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
  /** Whose polls these are (the session): a newer attempt of the same key supersedes this one. */
  key: string;
  /** The activity's attempt number, carried with the poll count (see {@link HeldPollDetails}). */
  attempt: number;
  /** The number of the attempt's first poll (0 arms the first interval and makes no call). */
  poll: number;
  /** No poll of this attempt starts later than this (ms since the epoch): the attempt's bound less one poll's. */
  holdUntilMs: number;
  /** When the attempt's start-to-close timeout ends (ms since the epoch): past it the server retries it. */
  endsAtMs: number;
  /** One poll: a step, or a failure to fail the attempt with (Temporal's retry policy takes it from there). */
  run: (poll: number, call: HeldPollCall) => Promise<PollStep<T>>;
  /** The failure that hands the attempt back to the server, its next attempt `delayMs` later. */
  handBack: (delayMs: number, reason: string) => Error;
  /**
   * Asked while the next poll waits, `leftMs` from now (see {@link HeldPollsOptions.retimeEveryMs}):
   * a shorter delay for it from now, when its plan changed (the budget's turns freed), or undefined.
   */
  sooner?: (leftMs: number) => number | undefined;
}

/** Options of {@link HeldPolls}. */
export interface HeldPollsOptions {
  /** Attempts held at once; more run as one poll per attempt. @default 50_000 */
  max?: number;
  /** Told when an attempt could not be completed or handed back (the server retries it at its bound). */
  warn?: (message: string) => void;
  /** How long a worker's release may take to hand its attempts back. @default 15_000 */
  releaseBoundMs?: number;
  /** How often the attempts waiting for their next poll are asked whether it should come sooner (`HeldAttempt.sooner`). @default 5_000 */
  retimeEveryMs?: number;
}

interface Held {
  readonly attempt: HeldAttempt<unknown>;
  timer: NodeJS.Timeout | undefined;
  /** When the next poll is due (ms since the epoch), while one waits. */
  dueAtMs: number;
  /** The number of the last poll started (the next attempt goes on after it). */
  made: number;
  /** Aborts the poll under way when the attempt is released (one per poll: see `#poll`). */
  poll: AbortController | undefined;
  /** The attempt's ending being told to the server (retried until told or the attempt's bound). */
  settling: Promise<void> | undefined;
}

/** Hand-backs under way at once while releasing. */
const RELEASE_CONCURRENCY = 200;
/** The first wait before a failed settle is tried again; doubled each time, up to {@link SETTLE_RETRY_MAX_MS}. */
const SETTLE_RETRY_MS = 500;
const SETTLE_RETRY_MAX_MS = 30_000;

/**
 * A worker's held poll attempts. A poll activity's attempt, instead of ending after one GetSession
 * with the next poll as its retry, is completed asynchronously and held here between its polls
 * (its task token, a timer and its plan: no activity slot), so one activity task carries every
 * poll that fits in its start-to-close timeout. Once the next poll would start past that bound, or
 * a poll lost its turn under a budget other workers share (any of them may make it), and when the worker stops,
 * the attempt is handed back to the server with the next poll's delay as its retry delay and the
 * poll count as its heartbeat details, as a poll of one call per attempt is. An attempt lost with
 * a crashed worker is retried by the server at its start-to-close timeout; an ending the server
 * could not be told is told again until then.
 *
 * A held attempt heartbeats only before it acts on an outcome (a cancelled one then reports the
 * cancel and fetches nothing) and when a newer attempt of its session comes to this worker: a
 * heartbeat costs about as much worker CPU as the call it would guard. So an attempt the workflow
 * cancelled while its session still runs, whose successor went to another worker, keeps polling,
 * at most until its bound, before it learns so.
 *
 * Its timers and their callbacks run in the async context of {@link open}, not of the activity
 * that handed the attempt over, so nothing of that activity (its context, its SDK state) is kept
 * alive while the attempt is held.
 */
export class HeldPolls {
  readonly #held = new Set<Held>();
  /** The newest attempt held for each key. */
  readonly #byKey = new Map<string, Held>();
  readonly #max: number;
  readonly #warn: (message: string) => void;
  readonly #releaseBoundMs: number;
  readonly #retimeEveryMs: number;
  #retimer: NodeJS.Timeout | undefined;
  #server: AttemptServer | undefined;
  /** Aborted when the worker stopped: endings being told again are tried once more at once. */
  #released = new AbortController();
  /** Endings not told while releasing (one warning for all of them). */
  #untold = 0;
  /** Runs a function in the async context `open` was called in. */
  #outside: (run: () => void) => void = (run) => run();

  constructor(options: HeldPollsOptions = {}) {
    this.#max = options.max ?? 50_000;
    this.#warn = options.warn ?? (() => undefined);
    this.#releaseBoundMs = options.releaseBoundMs ?? 15_000;
    this.#retimeEveryMs = options.retimeEveryMs ?? 5_000;
    if (!(this.#retimeEveryMs >= 10)) throw new RangeError('retimeEveryMs must be at least 10');
  }

  /** The worker runs: attempts may be held, their endings told through `server`. */
  open(server: AttemptServer): void {
    this.#server = server;
    this.#released = new AbortController();
    this.#untold = 0;
    this.#outside = AsyncResource.bind((run: () => void) => run());
    clearInterval(this.#retimer);
    this.#retimer = setInterval(() => this.#retime(), this.#retimeEveryMs).unref();
  }

  /** True when another attempt can be held (the worker runs and there is room). */
  get accepting(): boolean {
    return this.#server !== undefined && this.#held.size < this.#max;
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
      poll: undefined,
      settling: undefined,
    };
    this.#held.add(held);
    const older = this.#byKey.get(attempt.key);
    this.#byKey.set(attempt.key, held);
    this.#outside(() => {
      // The workflow polls a session through one attempt at a time: an older one held here was
      // cancelled (a redirect, a new run) or timed out, and is asked so at once.
      if (older) void this.#stillWanted(older);
      this.#wait(held, attempt.poll, 0);
    });
  }

  /**
   * Asks the attempt held for `key`, if any, whether it is still wanted (a heartbeat): the
   * workflow checks its session itself after it stopped the poll, so a cancelled attempt stops
   * here instead of polling once more.
   */
  ask(key: string): void {
    const held = this.#byKey.get(key);
    if (held) this.#outside(() => void this.#stillWanted(held));
  }

  /**
   * The worker stopped: every held attempt is handed back to the server (a poll under way is
   * aborted; its attempt comes back at once), and endings being told are waited for, within the
   * release's bound, so another worker goes on now rather than at the attempts' timeout.
   */
  async release(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    clearInterval(this.#retimer);
    this.#retimer = undefined;
    const all = [...this.#held];
    this.#held.clear();
    this.#byKey.clear();
    if (!server) return;
    this.#released.abort();
    const now = Date.now();
    const settling: Promise<void>[] = [];
    const waiting: Held[] = [];
    for (const held of all) {
      clearTimeout(held.timer);
      held.poll?.abort();
      if (held.settling) settling.push(held.settling);
      else waiting.push(held);
    }
    let failed = 0;
    const handBack = async (held: Held) => {
      const { taskToken, handBack: failure } = held.attempt;
      await server
        .fail(taskToken, failure(Math.max(0, held.dueAtMs - now), 'the worker stopped'), this.#details(held))
        .catch((error: unknown) => {
          if (!(error instanceof ActivityNotFoundError)) failed += 1;
        });
    };
    const handBacks = (async () => {
      let next = 0;
      const lane = async () => {
        while (next < waiting.length) await handBack(waiting[next++] as Held);
      };
      await Promise.all([...Array.from({ length: RELEASE_CONCURRENCY }, lane), ...settling]);
    })();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'bound'>((resolve) => {
      timer = setTimeout(() => resolve('bound'), this.#releaseBoundMs);
    });
    try {
      const ended = await Promise.race([handBacks.then(() => 'done' as const), bound]);
      const untold = failed + this.#untold;
      if (ended === 'bound' || untold > 0)
        this.#warn(
          `held polls: ${ended === 'bound' ? `not all handed back or told within ${this.#releaseBoundMs} ms` : `${untold} not handed back or told`}; the server retries them at their attempt's timeout`,
        );
    } finally {
      clearTimeout(timer);
    }
  }

  #details(held: Held): HeldPollDetails {
    return { polls: held.made, attempt: held.attempt.attempt };
  }

  /** True while `held` is still this worker's to act on (not released, settled or dropped). */
  #ours(held: Held): boolean {
    return this.#held.has(held) && held.settling === undefined && this.#server !== undefined;
  }

  /**
   * Brings sooner the next polls whose attempts ask for it (see {@link HeldAttempt.sooner}); only
   * the newest attempt of a session, whose poll the budget planned last.
   */
  #retime(): void {
    const now = Date.now();
    for (const held of this.#held) {
      const { attempt } = held;
      const waiting = held.timer !== undefined && this.#ours(held);
      if (!waiting || !attempt.sooner || this.#byKey.get(attempt.key) !== held) continue;
      let delayMs: number | undefined;
      try {
        delayMs = attempt.sooner(held.dueAtMs - now);
      } catch (error) {
        // Its plan stands: the poll comes when it was due.
        this.#warn(`a held poll could not be planned again: ${failureType(error)}`);
        continue;
      }
      if (delayMs === undefined || now + delayMs >= held.dueAtMs) continue;
      clearTimeout(held.timer);
      this.#wait(held, held.made + 1, delayMs);
    }
  }

  #wait(held: Held, poll: number, delayMs: number): void {
    held.dueAtMs = Date.now() + delayMs;
    held.timer = setTimeout(() => void this.#poll(held, poll), delayMs);
  }

  async #poll(held: Held, poll: number): Promise<void> {
    held.timer = undefined;
    if (!this.#ours(held)) return;
    held.made = poll;
    const { attempt } = held;
    // A controller of its own per poll: a signal that lived as long as the attempt would gather
    // the listeners of every call's combined signal.
    const controller = new AbortController();
    held.poll = controller;
    let step: PollStep<unknown>;
    try {
      step = await attempt.run(poll, {
        signal: controller.signal,
        stillWanted: () => this.#stillWanted(held),
      });
    } catch (error) {
      if (!this.#ours(held)) return;
      this.#warn(`a held poll failed (its attempt fails with it): ${failureType(error)}`);
      return this.#settle(held, (server) => server.fail(attempt.taskToken, error, this.#details(held)));
    } finally {
      held.poll = undefined;
    }
    if ('unwanted' in step || !this.#ours(held)) return;
    if ('outcome' in step)
      return this.#settle(held, (server) => server.complete(attempt.taskToken, step.outcome));
    if (step.handBack || Date.now() + step.againMs > attempt.holdUntilMs) {
      const failure = attempt.handBack(step.againMs, step.reason);
      return this.#settle(held, (server) => server.fail(attempt.taskToken, failure, this.#details(held)));
    }
    this.#wait(held, poll + 1, step.againMs);
  }

  /** A heartbeat: false (and the attempt settled) when the workflow cancelled it or it is gone. */
  async #stillWanted(held: Held): Promise<boolean> {
    const server = this.#server;
    if (!server || !this.#ours(held)) return false;
    const { taskToken, handBack } = held.attempt;
    try {
      await server.heartbeat(taskToken, this.#details(held));
      return true;
    } catch (error) {
      if (error instanceof ActivityCancelledError) this.#settle(held, (s) => s.reportCancellation(taskToken));
      else if (error instanceof ActivityNotFoundError) this.#drop(held);
      else if (error instanceof ActivityPausedError || error instanceof ActivityResetError)
        this.#settle(held, (s) => s.fail(taskToken, handBack(0, 'paused or reset'), this.#details(held)));
      // The server could not be asked: the outcome is acted on (a late answer is dropped).
      else return true;
      return false;
    }
  }

  #drop(held: Held): void {
    clearTimeout(held.timer);
    this.#held.delete(held);
    if (this.#byKey.get(held.attempt.key) === held) this.#byKey.delete(held.attempt.key);
  }

  /**
   * Tells the server how the attempt ends (completed, failed, handed back or cancelled), trying
   * again while it cannot be reached, until the attempt's own bound (the server retries it then);
   * once the worker stopped, once more at once, within the release's bound.
   */
  #settle(held: Held, call: (server: AttemptServer) => Promise<void>): void {
    const server = this.#server;
    if (!server || !this.#ours(held)) return;
    clearTimeout(held.timer);
    const released = this.#released.signal;
    held.settling = (async () => {
      for (let waitMs = SETTLE_RETRY_MS; ; waitMs = Math.min(SETTLE_RETRY_MAX_MS, waitMs * 2)) {
        try {
          await call(server);
          return;
        } catch (error) {
          // Not found or cancelled: the attempt ended meanwhile (the workflow closed or cancelled
          // it, or the attempt timed out).
          if (error instanceof ActivityNotFoundError || error instanceof ActivityCancelledError) return;
          if (released.aborted) {
            this.#untold += 1;
            return;
          }
          if (!toldAgain(error) || Date.now() + waitMs >= held.attempt.endsAtMs) {
            this.#warn(
              `a held poll's ending could not be told to the server (it retries the attempt at its timeout): ${error instanceof Error ? error.message : String(error)}`,
            );
            return;
          }
          await sleep(waitMs, undefined, { signal: released }).catch(() => undefined);
        }
      }
    })().finally(() => this.#drop(held));
  }
}

/** gRPC statuses that no later try changes. */
const LASTING_GRPC_STATUSES: ReadonlySet<number> = new Set([
  grpcStatus.INVALID_ARGUMENT,
  grpcStatus.PERMISSION_DENIED,
  grpcStatus.FAILED_PRECONDITION,
  grpcStatus.UNAUTHENTICATED,
]);

/** True when telling the server an ending may work later (it was not reached, or was busy). */
function toldAgain(error: unknown): boolean {
  const status = grpcStatusOf(error);
  return status === undefined || !LASTING_GRPC_STATUSES.has(status);
}

/** A failure's type for a log line: no message (it may carry the service's words). */
function failureType(error: unknown): string {
  if (error instanceof ApplicationFailure) return error.type ?? 'ApplicationFailure';
  return error instanceof Error ? error.name : typeof error;
}
