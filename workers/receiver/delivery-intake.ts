import { setTimeout as sleep } from 'node:timers/promises';
import { type AgentEvent } from '../../agent-platform/shared/messages';
import { type DeliverySpool, laneOf, type SpoolEntry } from './delivery-spool';
import { failureFields } from './failure-kind';
import { type OperationalFields, type OperationalLog } from './operational-log';
import { Mutex } from 'async-mutex';

/** The spooled deliveries one replay round takes at most (their connections go side by side). */
const REPLAY_BATCH = 64;
/**
 * Of those, the most of one connection: a connection whose deliveries keep failing (its
 * workflow refusing signals) holds this many turns of a round, and every other connection's
 * deliveries go on beside it.
 */
const REPLAY_PER_CONNECTION = 8;
/**
 * A connection whose workflow refuses its deliveries (see {@link HandOffRefusedError}) at least
 * this many rounds, over at least `refusedForMs`, while other connections' deliveries went in
 * meanwhile, has each refused delivery set aside (`<entry>.refused`): the one at its head would
 * otherwise hold every later one of the connection, forever. Not while Temporal refuses every
 * connection (a namespace failing over, a setting): that is no delivery's fault.
 */
export const REFUSED_ROUNDS_BEFORE_SET_ASIDE = 3;
/** See {@link REFUSED_ROUNDS_BEFORE_SET_ASIDE}. */
export const REFUSED_FOR_MS = 10 * 60_000;

/** Hands one event to Temporal (signal-with-start); rejects when Temporal did not take it. */
export type HandOff = (event: AgentEvent) => Promise<void>;

/**
 * What a {@link HandOff} rejects with when Temporal refuses the event for its connection's
 * workflow (its run's limits, an event it cannot take), not for want of a connection: the intake
 * sets it aside as {@link REFUSED_ROUNDS_BEFORE_SET_ASIDE} says.
 */
export class HandOffRefusedError extends Error {
  override readonly name = 'HandOffRefusedError';
}

/** What became of a delivery: handed to Temporal, spooled for later, or a repeat of one already taken. */
export type IntakeOutcome = 'delivered' | 'spooled' | 'duplicate';

/** Options of {@link DeliveryIntake}. */
export interface DeliveryIntakeOptions {
  /** One event per change of state (Temporal lost, spool drained); never ids of people or tokens. */
  log?: OperationalLog;
  /** First wait before replaying again after a failure. @default 500 */
  minBackoffMs?: number;
  /** @default 15000 */
  maxBackoffMs?: number;
  /** Recent deliveries remembered to drop repeats before they reach Temporal. @default 10000 */
  recentKeys?: number;
  /** See {@link REFUSED_ROUNDS_BEFORE_SET_ASIDE}. @default {@link REFUSED_FOR_MS} */
  refusedForMs?: number;
  /** Told of each delivery set aside (counted in the receiver's metrics). */
  onSetAside?: () => void;
}

/**
 * The receiver's path from an accepted delivery to Temporal: straight through while Temporal
 * takes it, otherwise (or while earlier deliveries still wait) into the durable spool, which a
 * background loop replays in order. Repeats seen recently are answered without a second signal;
 * the connection's workflow absorbs any that get through (after a restart, or a hand-off that
 * timed out but had been taken).
 */
export class DeliveryIntake {
  readonly #spool: DeliverySpool;
  readonly #handOff: HandOff;
  readonly #log: OperationalLog;
  readonly #minBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #recentLimit: number;
  readonly #refusedForMs: number;
  readonly #onSetAside: () => void;
  /** When a delivery last went in (straight or replayed): whether Temporal takes any. */
  #lastTakenAt = Number.NEGATIVE_INFINITY;
  readonly #recent = new Set<string>();
  readonly #inFlight = new Map<string, Promise<IntakeOutcome>>();
  /** Per connection, the last delivery's way in: the next one waits for it (order kept). */
  readonly #lanes = new Map<string, Mutex>();
  readonly #stop = new AbortController();
  #wakeIdle: (() => void) | undefined;
  #wakeRequested = false;
  #loop: Promise<void> | undefined;

  constructor(spool: DeliverySpool, handOff: HandOff, options: DeliveryIntakeOptions = {}) {
    this.#spool = spool;
    this.#handOff = handOff;
    this.#log = options.log ?? (() => undefined);
    this.#minBackoffMs = options.minBackoffMs ?? 500;
    this.#maxBackoffMs = options.maxBackoffMs ?? 15_000;
    this.#recentLimit = options.recentKeys ?? 10_000;
    this.#refusedForMs = options.refusedForMs ?? REFUSED_FOR_MS;
    this.#onSetAside = options.onSetAside ?? (() => undefined);
  }

  /** Deliveries waiting in the spool. */
  get spoolDepth(): number {
    return this.#spool.depth;
  }

  /** Starts replaying what the spool holds (a previous process may have left some). */
  start(): void {
    this.#loop ??= this.#replay();
  }

  /** Resolves once the delivery is with Temporal or durably spooled. */
  accept(event: AgentEvent): Promise<IntakeOutcome> {
    const key = [event.tenant, event.connectionId, event.messageType, event.objectId].join('\n');
    if (this.#recent.has(key)) return Promise.resolve('duplicate');
    const running = this.#inFlight.get(key);
    if (running) return running.then(() => 'duplicate');
    const outcome = this.#inLane(laneOf(event), () => this.#take(event)).then((taken) => {
      this.#remember(key);
      return taken;
    });
    this.#inFlight.set(key, outcome);
    void outcome.finally(() => this.#inFlight.delete(key)).catch(() => undefined);
    return outcome;
  }

  /** Stops the replay loop; what is spooled stays for the next start. */
  async close(): Promise<void> {
    this.#stop.abort();
    this.#notify();
    await this.#loop;
  }

  /** Runs `body` after the connection's previous delivery has gone in (to Temporal or the spool). */
  async #inLane<T>(lane: string, body: () => Promise<T>): Promise<T> {
    let mutex = this.#lanes.get(lane);
    if (!mutex) this.#lanes.set(lane, (mutex = new Mutex()));
    try {
      return await mutex.runExclusive(body);
    } finally {
      // The last delivery of the lane forgets it: a connection quiet now holds no memory.
      if (!mutex.isLocked() && this.#lanes.get(lane) === mutex) this.#lanes.delete(lane);
    }
  }

  async #take(event: AgentEvent): Promise<IntakeOutcome> {
    // While earlier deliveries wait, later ones queue behind them: order is kept.
    let reason: OperationalFields = { reason: 'earlier deliveries are waiting' };
    if (this.#spool.depth === 0) {
      try {
        await this.#handOff(event);
        this.#lastTakenAt = Date.now();
        return 'delivered';
      } catch (error) {
        // Temporal did not take it (or did not say so in time): spooled below, replayed later.
        reason = failureFields(error);
      }
    }
    const wasEmpty = this.#spool.depth === 0;
    try {
      await this.#spool.append(event);
    } finally {
      // Also when the write failed: later entries waited behind it and may go now.
      this.#notify();
    }
    if (wasEmpty)
      this.#log(
        'Temporal is not taking deliveries: spooling them until it does',
        { ...reason, spoolDepth: this.#spool.depth },
        'warn',
      );
    return 'spooled';
  }

  #remember(key: string): void {
    this.#recent.add(key);
    if (this.#recent.size > this.#recentLimit)
      this.#recent.delete(this.#recent.values().next().value as string);
  }

  async #replay(): Promise<void> {
    let backoffMs = this.#minBackoffMs;
    let replayed = 0;
    // Said once per run of failed hand-offs (a receiver may start with deliveries left while
    // Temporal is away: nothing else would say why the spool does not drain).
    let refusalSaid = false;
    /** Per connection refused, since when and how many rounds (see {@link REFUSED_ROUNDS_BEFORE_SET_ASIDE}). */
    const refused = new Map<string, { since: number; rounds: number }>();
    while (!this.#stop.signal.aborted) {
      try {
        const entries = await this.#spool.oldestEntries(REPLAY_BATCH, REPLAY_PER_CONNECTION);
        if (entries.length === 0) {
          if (replayed > 0 && this.#spool.depth === 0)
            this.#log('spool drained: deliveries handed to Temporal', { replayed });
          if (this.#spool.depth === 0) replayed = 0;
          await this.#idle();
          continue;
        }
        // Connections side by side, each one's deliveries in order; one whose hand-off fails
        // stops there (its later ones stay behind it), and the batch is tried again after the
        // backoff from the oldest left.
        const lanes = new Map<string, SpoolEntry[]>();
        for (const entry of entries) {
          const lane = laneOf(entry.event);
          lanes.set(lane, [...(lanes.get(lane) ?? []), entry]);
        }
        const settled = await Promise.allSettled(
          [...lanes].map(async ([lane, laneEntries]) => {
            for (const entry of laneEntries) {
              try {
                await this.#handOff(entry.event);
              } catch (error) {
                if (!(error instanceof HandOffRefusedError)) throw error;
                const now = Date.now();
                const record = refused.get(lane) ?? { since: now, rounds: 0 };
                record.rounds += 1;
                refused.set(lane, record);
                const setAside =
                  record.rounds >= REFUSED_ROUNDS_BEFORE_SET_ASIDE &&
                  now - record.since >= this.#refusedForMs &&
                  this.#lastTakenAt > record.since;
                if (!setAside) throw error;
                await this.#setAside(entry, error);
                continue;
              }
              this.#lastTakenAt = Date.now();
              refused.delete(lane);
              await this.#spool.remove(entry.name);
              replayed += 1;
            }
          }),
        );
        const failed = settled.find((outcome) => outcome.status === 'rejected');
        if (failed) throw failed.reason;
        backoffMs = this.#minBackoffMs;
        refusalSaid = false;
      } catch (error) {
        if (!isHandOffFailure(error))
          this.#log(
            'cannot read the spool: retrying',
            { ...failureFields(error), spoolDepth: this.#spool.depth },
            'error',
          );
        else if (!refusalSaid) {
          refusalSaid = true;
          this.#log(
            'Temporal is not taking the spooled deliveries: retrying until it does',
            { ...failureFields(error), spoolDepth: this.#spool.depth },
            'warn',
          );
        }
        // New deliveries do not cut this wait short: Temporal is retried at the backoff's pace.
        await sleep(backoffMs, undefined, { signal: this.#stop.signal }).catch(() => undefined);
        backoffMs = Math.min(backoffMs * 2, this.#maxBackoffMs);
      }
    }
  }

  /** Sets aside a delivery Temporal refused for good, said with why (ids only, as the entry holds). */
  async #setAside(entry: SpoolEntry, error: HandOffRefusedError): Promise<void> {
    await this.#spool.setAside(entry.name, 'refused');
    this.#onSetAside();
    this.#log(
      'Temporal refuses a delivery for good: set aside, its connection goes on',
      { entry: entry.name, setAsideAs: `${entry.name}.refused`, ...failureFields(error) },
      'error',
    );
  }

  /** Wakes the idle loop; remembered if it is not idle yet, so no wake is lost. */
  #notify(): void {
    this.#wakeRequested = true;
    this.#wakeIdle?.();
  }

  /** Until an append, or the spool's next look in its folder (entries another writer landed). */
  async #idle(): Promise<void> {
    if (!this.#wakeRequested) {
      const timer = new AbortController();
      await Promise.race([
        new Promise<void>((resolve) => (this.#wakeIdle = resolve)),
        sleep(this.#spool.rescanMs, undefined, { signal: timer.signal, ref: false }).catch(() => undefined),
      ]);
      timer.abort();
    }
    this.#wakeIdle = undefined;
    this.#wakeRequested = false;
  }
}

/** Hand-off failures are expected while Temporal is away; others (the disk) are said. */
function isHandOffFailure(error: unknown): boolean {
  return !(
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { syscall?: unknown }).syscall === 'string'
  );
}
