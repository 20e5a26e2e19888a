import { setTimeout as sleep } from 'node:timers/promises';
import { type AgentEvent } from '../../agent-platform/shared/messages';
import { type DeliverySpool, laneOf, type SpoolEntry, SpoolFullError } from './delivery-spool';
import { failureFields } from './failure-kind';
import { type OperationalFields, type OperationalLog } from './operational-log';
import { Mutex } from 'async-mutex';

/** The spooled deliveries one replay round takes at most (their connections go side by side). */
const REPLAY_BATCH = 64;
/**
 * Of those, the most of one connection: a connection whose deliveries keep failing (its workflow
 * refusing signals) holds no more of a round, and every other connection's deliveries go on
 * beside it.
 */
const REPLAY_PER_CONNECTION = 8;

/** What the intake uses of its spool. */
export type IntakeSpool = Pick<
  DeliverySpool,
  'depth' | 'rescanMs' | 'append' | 'remove' | 'oldestEntries' | 'holdsNoneOf'
>;

/** Hands one event to Temporal (signal-with-start); rejects when Temporal did not take it. */
export type HandOff = (event: AgentEvent) => Promise<void>;

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
  /**
   * How long a connection's spooled deliveries may wait, their hand-off failing, before it is
   * said (its workflow refuses them while the others' go in). @default 300000
   */
  longWaitMs?: number;
  /**
   * While Temporal is believed away, how often one delivery tries it rather than the spool
   * (nothing else may show it back: the spool may hold only what cannot go). @default 5000
   */
  probeAfterMs?: number;
}

/**
 * Whether Temporal takes deliveries now, learned from the hand-offs' outcomes in the order they
 * began: one that began before the outcome last learned says nothing newer (a slow refusal, or
 * a success from before an outage). Believed away, deliveries are spooled at once rather than
 * each waiting out a hand-off, but one tries Temporal every `probeAfterMs`.
 */
class TemporalTaking {
  #taking = true;
  #asOf = Number.NEGATIVE_INFINITY;
  #probing = false;

  constructor(private readonly probeAfterMs: number) {}

  /** Whether a delivery tries Temporal now: `probe` when it is the one trying while believed away. */
  tryNow(now: number): 'yes' | 'probe' | 'no' {
    if (this.#taking) return 'yes';
    if (this.#probing || now - this.#asOf < this.probeAfterMs) return 'no';
    this.#probing = true;
    return 'probe';
  }

  /** A probe ended, whatever was learned from it. */
  probed(): void {
    this.#probing = false;
  }

  learn(startedAt: number, took: boolean): void {
    if (startedAt < this.#asOf) return;
    this.#asOf = startedAt;
    this.#taking = took;
  }
}

/** A connection whose last hand-off failed: tried again at `at`, its backoff doubling. */
interface LaneWait {
  at: number;
  backoffMs: number;
  /** When its hand-offs began to fail. */
  since: number;
  /** Said once it waited `longWaitMs`. */
  said: boolean;
}

/**
 * The receiver's path from an accepted delivery to Temporal: straight through while Temporal
 * takes it, otherwise (or while earlier deliveries still wait) into the durable spool, which a
 * background loop replays in order. Repeats seen recently are answered without a second signal;
 * the connection's workflow absorbs any that get through (after a restart, or a hand-off that
 * timed out but had been taken).
 */
export class DeliveryIntake {
  readonly #spool: IntakeSpool;
  readonly #handOff: HandOff;
  readonly #log: OperationalLog;
  readonly #minBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #recentLimit: number;
  readonly #longWaitMs: number;
  /**
   * Connections whose last hand-off failed: passed over by the replay until their time comes,
   * so one whose workflow refuses its signals holds none but its own deliveries.
   */
  readonly #waiting = new Map<string, LaneWait>();
  readonly #temporal: TemporalTaking;
  readonly #recent = new Set<string>();
  readonly #inFlight = new Map<string, Promise<IntakeOutcome>>();
  /** Per connection, the last delivery's way in: the next one waits for it (order kept). */
  readonly #lanes = new Map<string, Mutex>();
  readonly #stop = new AbortController();
  #wakeIdle: (() => void) | undefined;
  #wakeRequested = false;
  #loop: Promise<void> | undefined;

  constructor(spool: IntakeSpool, handOff: HandOff, options: DeliveryIntakeOptions = {}) {
    this.#spool = spool;
    this.#handOff = handOff;
    this.#log = options.log ?? (() => undefined);
    this.#minBackoffMs = options.minBackoffMs ?? 500;
    this.#maxBackoffMs = options.maxBackoffMs ?? 15_000;
    this.#recentLimit = options.recentKeys ?? 10_000;
    this.#longWaitMs = options.longWaitMs ?? 300_000;
    this.#temporal = new TemporalTaking(options.probeAfterMs ?? 5_000);
  }

  /** Deliveries waiting in the spool. */
  get spoolDepth(): number {
    return this.#spool.depth;
  }

  /** How long the connection waiting longest has had its hand-offs fail (0 when none). */
  longestWaitMs(now = Date.now()): number {
    let since = now;
    for (const wait of this.#waiting.values()) since = Math.min(since, wait.since);
    return now - since;
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
    // While the connection's earlier deliveries wait, later ones queue behind them: order is
    // kept. Another connection's waiting deliveries hold none of this one's, unless Temporal
    // takes nothing now.
    const lane = laneOf(event);
    let reason: OperationalFields = { reason: 'earlier deliveries are waiting' };
    const startedAt = Date.now();
    const trying =
      this.#spool.depth === 0
        ? 'yes'
        : this.#spool.holdsNoneOf(lane)
          ? this.#temporal.tryNow(startedAt)
          : 'no';
    if (trying !== 'no') {
      try {
        await this.#handOffLearning(lane, event, startedAt, true);
        return 'delivered';
      } catch (error) {
        // Temporal did not take it (or did not say so in time): spooled below, replayed later.
        reason = failureFields(error);
      } finally {
        if (trying === 'probe') this.#temporal.probed();
      }
    }
    const wasEmpty = this.#spool.depth === 0;
    try {
      await this.#spool.append(event);
    } catch (error) {
      // The spool refuses (full): a delivery with nothing of its own waiting that did not try
      // Temporal tries it now, rather than being refused while Temporal may take it.
      if (!(error instanceof SpoolFullError) || trying !== 'no' || !this.#spool.holdsNoneOf(lane))
        throw error;
      await this.#handOffLearning(lane, event, Date.now(), true).catch(() => Promise.reject(error));
      return 'delivered';
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

  /**
   * Hands a delivery to Temporal and learns from the outcome whether it takes deliveries; a
   * connection that goes in waits no more. Only a failure of a delivery that goes straight, or
   * of a connection not already waiting, says something of Temporal as a whole.
   */
  async #handOffLearning(
    lane: string,
    event: AgentEvent,
    startedAt: number,
    straight: boolean,
  ): Promise<void> {
    const failureSaysAway = straight || !this.#waiting.has(lane);
    try {
      await this.#handOff(event);
    } catch (error) {
      if (failureSaysAway) this.#temporal.learn(startedAt, false);
      throw error;
    }
    this.#temporal.learn(startedAt, true);
    this.#waiting.delete(lane);
  }

  #remember(key: string): void {
    this.#recent.add(key);
    if (this.#recent.size > this.#recentLimit)
      this.#recent.delete(this.#recent.values().next().value as string);
  }

  async #replay(): Promise<void> {
    let spoolBackoffMs = this.#minBackoffMs;
    let replayed = 0;
    // Said once per run of failed hand-offs (a receiver may start with deliveries left while
    // Temporal is away: nothing else would say why the spool does not drain).
    let refusalSaid = false;
    const waiting = this.#waiting;
    const waits = (lane: string) => (waiting.get(lane)?.at ?? 0) > Date.now();
    while (!this.#stop.signal.aborted) {
      try {
        // A wait whose connection has nothing left here (removed by hand, set aside) is over.
        for (const lane of waiting.keys()) if (this.#spool.holdsNoneOf(lane)) waiting.delete(lane);
        const lookedAt = Date.now();
        const entries = await this.#spool.oldestEntries(REPLAY_BATCH, REPLAY_PER_CONNECTION, waits);
        if (entries.length === 0) {
          if (this.#spool.depth === 0) {
            if (replayed > 0) this.#log('spool drained: deliveries handed to Temporal', { replayed });
            replayed = 0;
            waiting.clear();
          }
          // A wait over before this look found nothing to try (its entries removed, or the
          // spool's lock lost): forgotten, so the loop idles rather than spins. One that ended
          // during the look (a slow disk) was passed over, and is tried at once.
          let nextTry = Number.POSITIVE_INFINITY;
          for (const [lane, wait] of waiting)
            if (wait.at <= lookedAt) waiting.delete(lane);
            else nextTry = Math.min(nextTry, wait.at);
          await this.#idle(Number.isFinite(nextTry) ? Math.max(0, nextTry - Date.now()) : undefined);
          continue;
        }
        // Connections side by side, each one's deliveries in order; one whose hand-off fails
        // stops there (its later ones stay behind it) and waits its own backoff.
        const lanes = new Map<string, SpoolEntry[]>();
        for (const entry of entries) {
          const lane = laneOf(entry.event);
          lanes.set(lane, [...(lanes.get(lane) ?? []), entry]);
        }
        const failures: unknown[] = [];
        const settled = await Promise.allSettled(
          [...lanes].map(async ([lane, laneEntries]) => {
            for (const entry of laneEntries) {
              try {
                await this.#handOffLearning(lane, entry.event, Date.now(), false);
              } catch (error) {
                this.#failed(lane, entry.name, error);
                failures.push(error);
                return;
              }
              await this.#spool.remove(entry.name);
              replayed += 1;
            }
          }),
        );
        // The spool failed (its disk): said below, tried again after the backoff.
        const spoolFailure = settled.find((outcome) => outcome.status === 'rejected');
        if (spoolFailure) throw spoolFailure.reason;
        spoolBackoffMs = this.#minBackoffMs;
        // Said again only after every connection went in since.
        if (failures.length === 0 && waiting.size === 0) refusalSaid = false;
        else if (!refusalSaid) {
          refusalSaid = true;
          this.#log(
            'Temporal is not taking the spooled deliveries: retrying until it does',
            { ...failureFields(failures[0]), spoolDepth: this.#spool.depth },
            'warn',
          );
        }
      } catch (error) {
        this.#log(
          'cannot read the spool: retrying',
          { ...failureFields(error), spoolDepth: this.#spool.depth },
          'error',
        );
        await sleep(spoolBackoffMs, undefined, { signal: this.#stop.signal }).catch(() => undefined);
        spoolBackoffMs = Math.min(spoolBackoffMs * 2, this.#maxBackoffMs);
      }
    }
  }

  /** A connection's hand-off failed: it waits its backoff, and is said once it waited long. */
  #failed(lane: string, entry: string, error: unknown): void {
    const now = Date.now();
    const before = this.#waiting.get(lane);
    const backoffMs = before ? Math.min(before.backoffMs * 2, this.#maxBackoffMs) : this.#minBackoffMs;
    const wait: LaneWait = {
      at: now + backoffMs,
      backoffMs,
      since: before?.since ?? now,
      said: before?.said ?? false,
    };
    this.#waiting.set(lane, wait);
    if (!wait.said && now - wait.since >= this.#longWaitMs) {
      wait.said = true;
      // Its entry's file name (the ids are in it), no id: a connection may lead to a person.
      this.#log(
        "a connection's deliveries wait for Temporal: its workflow refuses them while others go in",
        { ...failureFields(error), entry, waitedMs: now - wait.since },
        'warn',
      );
    }
  }

  /** Wakes the idle loop; remembered if it is not idle yet, so no wake is lost. */
  #notify(): void {
    this.#wakeRequested = true;
    this.#wakeIdle?.();
  }

  /**
   * Until an append, a waiting connection's next try (`waitMs`), or the spool's next look in its
   * folder (entries another writer landed).
   */
  async #idle(waitMs?: number): Promise<void> {
    if (!this.#wakeRequested) {
      const timer = new AbortController();
      const ms = Math.min(waitMs ?? Number.POSITIVE_INFINITY, this.#spool.rescanMs);
      await Promise.race([
        new Promise<void>((resolve) => (this.#wakeIdle = resolve)),
        sleep(ms, undefined, { signal: timer.signal, ref: false }).catch(() => undefined),
      ]);
      timer.abort();
    }
    this.#wakeIdle = undefined;
    this.#wakeRequested = false;
  }
}
