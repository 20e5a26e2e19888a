import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lock } from 'proper-lockfile';
import { z } from 'zod';
import { agentMessageTypes } from '../../agent-platform/domain/agent-deliveries';
import { type AgentEvent } from '../../agent-platform/shared/messages';
import { type OperationalLog } from './operational-log';
import { createFileExclusive, makeFolderDurably } from '../../stores/local/atomic-file';

const ENTRY = /^(\d{12})\.json$/;
/**
 * The spool's lock: a folder whose time its holder renews every few seconds, stale once not
 * renewed for {@link LOCK_STALE_MS}. It names no process, so it holds across containers (each
 * its own pid 1) and hosts sharing the spool's volume, and within one process.
 */
const LOCK_DIR = 'receiver.lock';
const LOCK_STALE_MS = 10_000;
/** The lock file of releases that named the owner by pid: removed once the new lock is held. */
const OLD_LOCK_FILE = 'receiver.pid';
/** The file `open` creates and removes, to learn that the spool's file system has hard links. */
const LINK_PROBE = 'link-probe';
/** What `link` answers on a file system that has no hard links. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);
/** Numbers an append tries past entries it finds taken (each one another writer landed). */
const NUMBER_TRIES = 100;

/** Thrown when the spool holds its maximum of deliveries: the delivery is not accepted. */
export class SpoolFullError extends Error {
  override readonly name: string = 'SpoolFullError';
}

/** Thrown when the spool holds its maximum of one connection's deliveries: that one is not accepted. */
export class ConnectionShareFullError extends SpoolFullError {
  override readonly name = 'ConnectionShareFullError';
}

/** Options of {@link DeliverySpool.open}. */
export interface DeliverySpoolOptions {
  /** Deliveries it holds at most; past it `append` refuses. @default 100000 */
  maxEntries?: number;
  /**
   * Deliveries of one connection it holds at most; past it `append` refuses that connection's
   * (a workflow refusing its signals for good fills no more than this of the spool). @default 10000
   */
  maxEntriesPerConnection?: number;
  /**
   * How long `open` waits for a lock held by another (a process that died leaves it stale after
   * 10 s) before it refuses. @default 15000
   */
  lockWaitMs?: number;
  /**
   * How long `close` waits for appends and reads under way (a disk that stopped answering)
   * before it gives the spool up all the same. @default 10000
   */
  closeWaitMs?: number;
  /**
   * How often an idle spool looks in its folder for entries it did not write (another writer's,
   * landed late) to replay them. @default 30000
   */
  rescanMs?: number;
  /** Told when an entry that does not parse is set aside, or has gone. */
  log?: OperationalLog;
}

/**
 * Thrown when another running receiver uses the spool directory, or by `append` once this
 * process lost the spool's lock (it could not renew it in time): nothing more is accepted.
 */
export class SpoolInUseError extends Error {
  override readonly name = 'SpoolInUseError';
}
const eventSchema = z.strictObject({
  tenant: z.string(),
  connectionId: z.string(),
  messageType: z.enum(agentMessageTypes),
  objectId: z.string(),
  receivedAt: z.string(),
});

/** Entries `open` reads at once to learn their connections. */
const LANE_READS_AT_ONCE = 64;

/** The connection a delivery belongs to: its deliveries are handed off in order, one lane. */
export function laneOf(event: Pick<AgentEvent, 'tenant' | 'connectionId'>): string {
  return `${event.tenant}\n${event.connectionId}`;
}

/** The number an entry's file name holds. */
function entryNumber(name: string): number {
  return Number(ENTRY.exec(name)?.[1]);
}

/** A spooled delivery: its file name orders it. */
export interface SpoolEntry {
  name: string;
  event: AgentEvent;
}

/**
 * Deliveries accepted while Temporal could not take them, on disk in arrival order: one file per
 * delivery, written to a temporary name, fsynced, hard-linked under its number (never over an
 * entry there: that one is taken in, and the next number tried) and the directory fsynced before
 * `append` resolves, so an acknowledged delivery survives a crash of the process or the machine.
 * A leftover temporary file was never acknowledged and is dropped. Entries hold ids and times
 * only, no personal data. One receiver process per spool directory, by its lock: one that lost
 * it may still land a write late, which the holder takes in when it meets its number, or when
 * idle it looks in the folder (`rescanMs`).
 */
export class DeliverySpool {
  readonly #dir: string;
  readonly #release: () => Promise<void>;
  /** Why the lock is lost, once it is: nothing more is appended. */
  #lockLost: string | undefined;
  readonly #names: string[];
  /**
   * The connection of each entry appended here or read once, so a batch passes over a full
   * lane's without reading them.
   */
  readonly #laneOf = new Map<string, string>();
  /** Per connection, its entries whose connection is known and its appends under way. */
  readonly #perLane = new Map<string, number>();
  /**
   * Numbered, being written (by name): counted, nothing after them is replayed before them, and
   * they land before the lock goes.
   */
  readonly #writing = new Map<string, Promise<void>>();
  /** Set once `close` began: nothing more is appended or replayed. */
  #closing = false;
  /** The reading of the connections of the entries found at `open`. */
  #lanesLearnt: Promise<void> = Promise.resolve();
  readonly #maxEntries: number;
  readonly #maxPerLane: number;
  readonly #closeWaitMs: number;
  readonly #rescanMs: number;
  #rescanAt: number;
  readonly #log: OperationalLog;
  #next: number;

  private constructor(
    dir: string,
    names: string[],
    options: DeliverySpoolOptions,
    release: () => Promise<void>,
  ) {
    this.#dir = dir;
    this.#release = release;
    this.#names = names;
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#maxPerLane = options.maxEntriesPerConnection ?? 10_000;
    this.#closeWaitMs = options.closeWaitMs ?? 10_000;
    this.#rescanMs = options.rescanMs ?? 30_000;
    this.#rescanAt = Date.now() + this.#rescanMs;
    this.#log = options.log ?? (() => undefined);
    this.#next = names.length === 0 ? 1 : entryNumber(names.at(-1) as string) + 1;
  }

  /**
   * Opens (creating, owner-only) the spool directory and finds what a previous process left.
   * Throws {@link SpoolInUseError} while another live process holds it.
   */
  static async open(dir: string, options: DeliverySpoolOptions = {}): Promise<DeliverySpool> {
    await makeFolderDurably(dir);
    let spool: DeliverySpool | undefined;
    const release = await takeLock(dir, options.lockWaitMs ?? 15_000, (error) => {
      if (spool) spool.#lose(error);
    });
    try {
      // A receiver of an earlier release knows only its pid file: while the process it names
      // lives (and is not this one), it holds the spool.
      const earlier = await earlierReceiver(dir);
      if (earlier !== undefined)
        throw new SpoolInUseError(
          `a receiver of an earlier release (pid ${earlier}) uses the spool ${dir}: stop it first`,
        );
      await rm(join(dir, OLD_LOCK_FILE), { force: true });
      await checkHardLinks(dir);
      const files = await readdir(dir);
      // What a crashed write left (its entry never appeared): written again by whoever sent it.
      await Promise.all(files.filter((file) => file.endsWith('.tmp')).map((file) => rm(join(dir, file))));
      spool = new DeliverySpool(dir, files.filter((file) => ENTRY.test(file)).sort(), options, release);
      spool.#lanesLearnt = spool.#learnLanes();
      return spool;
    } catch (error) {
      await release().catch(() => undefined);
      throw error;
    }
  }

  /** Resolves once the connection of every entry a previous process left is known (see `#learnLanes`). */
  get lanesLearnt(): Promise<void> {
    return this.#lanesLearnt;
  }

  /**
   * Reads, beside the receiver's work, the connection of each entry a previous process left
   * (up to `maxEntries` of them after a long outage: the receiver answers meanwhile), so that its
   * share counts them, and a connection with none of them goes straight to Temporal once all are
   * read (until then every delivery is spooled: it could be of a connection that waits). One that
   * does not parse, or has gone, is left to the replay, which sets it aside or drops it.
   */
  async #learnLanes(): Promise<void> {
    // Nothing here throws: a file that cannot be read is left to the replay.
    const left = [...this.#names];
    for (let from = 0; from < left.length && !this.#closing; from += LANE_READS_AT_ONCE) {
      // Not those the replay has read or removed already.
      const names = left
        .slice(from, from + LANE_READS_AT_ONCE)
        .filter((name) => !this.#laneOf.has(name) && this.#holds(name));
      const texts = await Promise.all(
        names.map((name) => readFile(join(this.#dir, name), 'utf8').catch(() => undefined)),
      );
      names.forEach((name, at) => {
        const text = texts[at];
        const parsed = text === undefined ? undefined : eventSchema.safeParse(parseJson(text));
        // Replayed and removed meanwhile: nothing of it waits.
        if (parsed?.success && this.#holds(name)) this.#know(name, laneOf(parsed.data));
      });
    }
  }

  /** The entry is still waiting here. */
  #holds(name: string): boolean {
    return this.#names[this.#position(name)] === name;
  }

  /** Where `name` is, or would go, among the names (kept in order): the first not before it. */
  #position(name: string): number {
    let low = 0;
    let high = this.#names.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.#names[middle] as string) < name) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** How often, idle, it looks in its folder for entries it did not write. */
  get rescanMs(): number {
    return this.#rescanMs;
  }

  /** True once the lock could not be renewed in time: nothing more is appended. */
  get lockLost(): boolean {
    return this.#lockLost !== undefined;
  }

  /** Deliveries waiting, those being written included. */
  get depth(): number {
    return this.#names.length + this.#writing.size;
  }

  /**
   * True when nothing of the connection waits here, and no entry whose connection is not read
   * yet (a previous process's, another writer's) may be one of its: its next delivery can go
   * straight to Temporal without passing one of its own.
   */
  holdsNoneOf(lane: string): boolean {
    return !this.#perLane.has(lane) && this.#laneOf.size === this.#names.length;
  }

  /**
   * Appends a delivery durably; resolves once it would survive a crash. It is numbered (and
   * counted) at once, in arrival order, whichever write ends first. Throws
   * {@link SpoolFullError} past `maxEntries`, or past `maxEntriesPerConnection` of its connection.
   */
  async append(event: AgentEvent): Promise<void> {
    if (this.#closing)
      throw new SpoolInUseError(`the spool ${this.#dir} is being closed: this receiver is stopping`);
    if (this.#lockLost !== undefined) throw new SpoolInUseError(this.#lockLost);
    if (this.depth >= this.#maxEntries)
      throw new SpoolFullError(`the spool holds its maximum of ${this.#maxEntries} deliveries`);
    const lane = laneOf(event);
    if ((this.#perLane.get(lane) ?? 0) >= this.#maxPerLane)
      throw new ConnectionShareFullError(
        `the spool holds its maximum of ${this.#maxPerLane} deliveries of one connection`,
      );
    const name = this.#number();
    this.#count(lane, 1);
    const appended = this.#land(name, event, lane).finally(() => {
      this.#writing.delete(name);
      this.#count(lane, -1);
    });
    this.#writing.set(name, appended);
    await appended;
    // Landed while another may hold the spool: it stays for a replay, but this receiver answers
    // for nothing it no longer holds (the sender's next try is absorbed as a repeat).
    if (this.#lockLost !== undefined) throw new SpoolInUseError(this.#lockLost);
  }

  #number(): string {
    return `${String(this.#next++).padStart(12, '0')}.json`;
  }

  /**
   * Writes the entry under `name`, or under the next number free: an entry is created, never
   * written over, so one another writer landed (a receiver that lost the spool, its write landing
   * late) is taken in for replay rather than lost.
   */
  async #land(name: string, event: AgentEvent, lane: string): Promise<void> {
    const content = JSON.stringify(event);
    const takenIn: string[] = [];
    try {
      for (let taken = name; takenIn.length < NUMBER_TRIES; taken = this.#number()) {
        // Given up meanwhile (closed past its wait, or its lock lost): the folder may be another's.
        if (this.#lockLost !== undefined) throw new SpoolInUseError(this.#lockLost);
        if (this.#closing && takenIn.length > 0)
          throw new SpoolInUseError(`the spool ${this.#dir} is being closed: this receiver is stopping`);
        const created = await createFileExclusive(join(this.#dir, taken), content);
        this.#insert(taken);
        if (created) {
          this.#know(taken, lane);
          return;
        }
        takenIn.push(taken);
      }
      throw new SpoolInUseError(
        `the spool ${this.#dir} is being written by another receiver (${NUMBER_TRIES} entry numbers taken)`,
      );
    } finally {
      if (takenIn.length > 0)
        this.#log(
          'spool entries landed by another writer: taken in for replay',
          { entries: takenIn.length, first: takenIn[0] as string },
          'warn',
        );
    }
  }

  /**
   * The oldest waiting delivery, or undefined while there is none or an older one is still being
   * written. A file that does not parse is set aside as `<name>.corrupt` (and said).
   */
  async oldest(): Promise<SpoolEntry | undefined> {
    return (await this.oldestEntries(1))[0];
  }

  /**
   * The oldest waiting deliveries in order, at most `limit`, none after one still being written,
   * at most `perLane` of one connection (its later ones are passed over, so a connection whose
   * deliveries wait cannot fill the batch ahead of every other), and none of a connection
   * `skipLane` says waits. A file that does not parse is set aside as `<name>.corrupt` (and
   * said); one removed by hand is skipped.
   */
  async oldestEntries(
    limit: number,
    perLane = limit,
    skipLane: (lane: string) => boolean = () => false,
  ): Promise<SpoolEntry[]> {
    const entries: SpoolEntry[] = [];
    // Another receiver may hold the spool now (or soon): it replays what is there.
    if (this.#closing || this.#lockLost !== undefined) return entries;
    await this.#rescanWhenIdle();
    const taken = new Map<string, number>();
    // A connection passed over once stays so for this batch: its later deliveries never go
    // before the one passed over.
    const passedOver = new Set<string>();
    const passOver = (lane: string) => {
      if (passedOver.has(lane) || (taken.get(lane) ?? 0) >= perLane || skipLane(lane)) passedOver.add(lane);
      return passedOver.has(lane);
    };
    let index = 0;
    while (entries.length < limit) {
      const name = this.#names[index];
      if (name === undefined) break;
      // Not one being written, nor any after it (its own number may be found by a rescan).
      if ([...this.#writing.keys()].some((writing) => writing <= name)) break;
      const knownLane = this.#laneOf.get(name);
      if (knownLane !== undefined && passOver(knownLane)) {
        index += 1;
        continue;
      }
      const text = await readFile(join(this.#dir, name), 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (text === undefined) {
        // Removed by hand: nothing to replay.
        this.#log('spool entry has gone', { entry: name }, 'warn');
        this.#drop(name);
        continue;
      }
      const parsed = eventSchema.safeParse(parseJson(text));
      if (parsed.success) {
        const lane = laneOf(parsed.data);
        this.#know(name, lane);
        index += 1;
        if (passOver(lane)) continue;
        taken.set(lane, (taken.get(lane) ?? 0) + 1);
        entries.push({ name, event: parsed.data });
        continue;
      }
      await this.#setAsideCorrupt(name);
      this.#log(
        'spool entry does not parse: set aside',
        { entry: name, setAsideAs: `${name}.corrupt` },
        'warn',
      );
    }
    return entries;
  }

  /** Sets aside, as `<name>.corrupt`, a delivery that does not parse: it is replayed no more. */
  async #setAsideCorrupt(name: string): Promise<void> {
    await rename(join(this.#dir, name), join(this.#dir, `${name}.corrupt`));
    this.#drop(name);
  }

  /**
   * Drops a delivery Temporal has taken. Not fsynced: if a crash brings it back it is replayed
   * once more, and the connection's workflow absorbs the repeat.
   */
  async remove(name: string): Promise<void> {
    await rm(join(this.#dir, name), { force: true });
    this.#drop(name);
  }

  #drop(name: string): void {
    const index = this.#position(name);
    if (this.#names[index] === name) this.#names.splice(index, 1);
    const lane = this.#laneOf.get(name);
    if (lane === undefined) return;
    this.#laneOf.delete(name);
    this.#count(lane, -1);
  }

  /** Notes the connection of a spooled entry (once). */
  #know(name: string, lane: string): void {
    if (this.#laneOf.has(name)) return;
    this.#laneOf.set(name, lane);
    this.#count(lane, 1);
  }

  #count(lane: string, by: number): void {
    const count = (this.#perLane.get(lane) ?? 0) + by;
    if (count > 0) this.#perLane.set(lane, count);
    else this.#perLane.delete(lane);
  }

  /**
   * Gives the directory up for another process (what is spooled stays). Appends under way land
   * first, and the reading of connections stops, for at most `closeWaitMs`: an append that lands
   * later is still created whole under a number no other entry holds, and was never acknowledged
   * (the server closed its connection first); a read that ends later only reads.
   */
  async close(): Promise<void> {
    this.#closing = true;
    const timer = new AbortController();
    let reading = true;
    const read = this.#lanesLearnt.then(() => (reading = false));
    const waited = await Promise.race([
      Promise.allSettled([...this.#writing.values(), read]).then(() => true),
      sleep(this.#closeWaitMs, false, { signal: timer.signal }).catch(() => false),
    ]);
    timer.abort();
    if (!waited)
      this.#log(
        'spool appends or reads still under way at close: the spool is given up without them',
        { appends: this.#writing.size, readingConnections: reading ? 1 : 0, waitedMs: this.#closeWaitMs },
        'warn',
      );
    if (this.#lockLost === undefined) await this.#release().catch(() => undefined);
  }

  /** The lock could not be renewed in time (another may take it): appends are refused from now on. */
  #lose(error: Error): void {
    this.#lockLost = `the spool ${this.#dir} is no longer this receiver's (its lock was not renewed in time: ${error.message}): restart the receiver`;
    this.#log('spool lock lost: deliveries are refused until the receiver restarts', {}, 'error');
  }

  /**
   * Takes in, once idle, the entries in the folder it does not know: a receiver that lost the
   * spool may land one late under a number this one never reaches, and nothing else would replay
   * it before a restart. Idle, nothing of this one's is being written or removed.
   */
  async #rescanWhenIdle(): Promise<void> {
    if (this.#names.length > 0 || this.#writing.size > 0 || Date.now() < this.#rescanAt) return;
    this.#rescanAt = Date.now() + this.#rescanMs;
    const listed = await readdir(this.#dir);
    // An append begun during the listing is this one's own, not another writer's.
    if (this.#writing.size > 0) return;
    const found = listed.filter((file) => ENTRY.test(file) && !this.#holds(file));
    if (found.length === 0) return;
    for (const name of found) {
      this.#insert(name);
      // Numbered on past it: its place in the order is before what comes next.
      this.#next = Math.max(this.#next, entryNumber(name) + 1);
    }
    this.#log(
      'spool entries found that another writer landed: taken in for replay',
      {
        entries: found.length,
      },
      'warn',
    );
  }

  #insert(name: string): void {
    const index = this.#position(name);
    if (this.#names[index] !== name) this.#names.splice(index, 0, name);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Takes the spool's lock, waiting up to `waitMs` for a holder that died to leave it stale;
 * `lost` is told if it cannot be renewed later. Resolves to its release.
 */
async function takeLock(
  dir: string,
  waitMs: number,
  lost: (error: Error) => void,
): Promise<() => Promise<void>> {
  const tries = Math.ceil(waitMs / 1_000);
  try {
    return await lock(dir, {
      realpath: false,
      lockfilePath: join(dir, LOCK_DIR),
      stale: LOCK_STALE_MS,
      retries: { retries: tries, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 },
      onCompromised: lost,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED')
      throw new SpoolInUseError(`another receiver uses the spool ${dir} (its lock ${LOCK_DIR} is held)`);
    throw error;
  }
}

/** The live process a pid file of an earlier release names, if any (this one's pid excepted). */
async function earlierReceiver(dir: string): Promise<number | undefined> {
  const text = await readFile(join(dir, OLD_LOCK_FILE), 'utf8').catch(() => '');
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

/**
 * Entries are created as hard links (never written over): a file system without them would
 * refuse every append, first seen in the next outage of Temporal. Said at open instead.
 */
async function checkHardLinks(dir: string): Promise<void> {
  const probe = join(dir, LINK_PROBE);
  await rm(probe, { force: true });
  try {
    await createFileExclusive(probe, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && NO_HARD_LINKS.has(code))
      throw new Error(
        `the spool ${dir} is on a file system without hard links (${code}): put it on one that has them`,
      );
    throw error;
  } finally {
    await rm(probe, { force: true });
  }
}
