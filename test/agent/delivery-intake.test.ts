import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryIntake, type IntakeSpool } from '../../workers/receiver/delivery-intake';
import { DeliverySpool, SpoolFullError } from '../../workers/receiver/delivery-spool';
import { type AgentEvent } from '../../agent-platform/shared/messages';
import { eventually } from '../harness/eventually';

const event = (objectId: string): AgentEvent => ({
  tenant: 'tenant-1',
  connectionId: 'conn-1',
  messageType: 'verification',
  objectId,
  receivedAt: '2026-11-23T00:00:00.000Z',
});

/** Stands in for Temporal: takes events while `up`, refuses them otherwise. */
function temporalStandIn() {
  const taken: string[] = [];
  const state = { up: true, taken };
  const handOff = (delivery: AgentEvent) => {
    if (!state.up) return Promise.reject(new Error('unavailable'));
    taken.push(delivery.objectId);
    return Promise.resolve();
  };
  return { state, handOff };
}

describe('DeliveryIntake', () => {
  let dir: string;
  const opened: DeliveryIntake[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idv-intake-'));
  });
  afterEach(async () => {
    for (const intake of opened.splice(0)) await intake.close();
    await rm(dir, { recursive: true, force: true });
  });
  const open = async (handOff: (event: AgentEvent) => Promise<void>, rescanMs?: number) => {
    const spool = await DeliverySpool.open(dir, rescanMs === undefined ? {} : { rescanMs });
    const intake = new DeliveryIntake(spool, handOff, {
      minBackoffMs: 10,
      maxBackoffMs: 20,
    });
    intake.start();
    opened.push(intake);
    return intake;
  };

  it('replays, idle, an entry another receiver landed late in the spool it holds now', async () => {
    const temporal = temporalStandIn();
    await open(temporal.handOff, 100);
    // Nothing appended here: Temporal is up, and the spool is empty until the other's write lands.
    await writeFile(join(dir, '000000009000.json'), JSON.stringify(event('landed-late')));
    await eventually(
      () => Promise.resolve(temporal.state.taken.includes('landed-late') ? true : undefined),
      'the late entry handed to Temporal',
    );
  });

  it('hands deliveries straight through while Temporal takes them, and answers a repeat without a second hand-off', async () => {
    const temporal = temporalStandIn();
    const intake = await open(temporal.handOff);
    expect(await intake.accept(event('a'))).toBe('delivered');
    expect(await intake.accept(event('a'))).toBe('duplicate');
    expect(temporal.state.taken).toEqual(['a']);
  });

  it('spools while Temporal is away, keeps later deliveries behind them, and replays in order', async () => {
    const temporal = temporalStandIn();
    temporal.state.up = false;
    const intake = await open(temporal.handOff);
    expect(await intake.accept(event('1'))).toBe('spooled');
    expect(await intake.accept(event('2'))).toBe('spooled');
    expect(intake.spoolDepth).toBe(2);
    temporal.state.up = true;
    // Arrives while 1 and 2 still wait: it queues behind them.
    const third = await intake.accept(event('3'));
    await eventually(() => Promise.resolve(intake.spoolDepth === 0 ? true : undefined), 'the spool to drain');
    expect(temporal.state.taken).toEqual(['1', '2', '3']);
    expect(third).toBe('spooled');
  });

  it("keeps a connection's deliveries in order when the first one's hand-off fails slowly", async () => {
    const taken: string[] = [];
    let first = true;
    const intake = await open(async (delivery) => {
      if (first) {
        first = false;
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error('timed out');
      }
      taken.push(delivery.objectId);
    });
    const a = intake.accept(event('A'));
    const b = intake.accept(event('B'));
    expect(await a).toBe('spooled');
    expect(await b).toBe('spooled');
    await eventually(() => Promise.resolve(intake.spoolDepth === 0 ? true : undefined), 'the spool to drain');
    expect(taken).toEqual(['A', 'B']);
  });

  it('replays the connections side by side once Temporal is back, each connection in order', async () => {
    let up = false;
    let inFlight = 0;
    let mostAtOnce = 0;
    const taken = new Map<string, string[]>();
    const intake = await open(async (delivery) => {
      if (!up) throw new Error('unavailable');
      inFlight += 1;
      mostAtOnce = Math.max(mostAtOnce, inFlight);
      // A signal's round trip: the replay would hand off one at a time without lanes side by side.
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight -= 1;
      taken.set(delivery.connectionId, [...(taken.get(delivery.connectionId) ?? []), delivery.objectId]);
    });
    for (let n = 0; n < 4; n += 1)
      for (const connectionId of ['conn-a', 'conn-b', 'conn-c', 'conn-d'])
        expect(await intake.accept({ ...event(`${connectionId}-${n}`), connectionId })).toBe('spooled');
    up = true;
    await eventually(() => Promise.resolve(intake.spoolDepth === 0 ? true : undefined), 'the spool to drain');
    expect(mostAtOnce).toBeGreaterThan(1);
    for (const connectionId of ['conn-a', 'conn-b', 'conn-c', 'conn-d'])
      expect(taken.get(connectionId)).toEqual([0, 1, 2, 3].map((n) => `${connectionId}-${n}`));
  });

  it('tries a connection again once its wait is over, though the wait ended while the spool was being read', async () => {
    const spool = await DeliverySpool.open(dir);
    // A slow disk: each look at the spool answers after the connection's wait (200 ms) is over.
    const slowDisk: IntakeSpool = {
      get depth() {
        return spool.depth;
      },
      get rescanMs() {
        return spool.rescanMs;
      },
      append: (delivery: AgentEvent) => spool.append(delivery),
      remove: (name: string) => spool.remove(name),
      holdsNoneOf: (lane: string) => spool.holdsNoneOf(lane),
      oldestEntries: async (...args: Parameters<DeliverySpool['oldestEntries']>) => {
        const found = await spool.oldestEntries(...args);
        await new Promise((resolve) => setTimeout(resolve, 400));
        return found;
      },
    };
    let refused = 0;
    const intake = new DeliveryIntake(
      slowDisk,
      // Refused on the way in and at the first replay (its workflow busy), then taken.
      () => (refused++ < 2 ? Promise.reject(new Error('unavailable')) : Promise.resolve()),
      { minBackoffMs: 200, maxBackoffMs: 200 },
    );
    opened.push(intake);
    intake.start();
    expect(await intake.accept(event('late'))).toBe('spooled');
    // Before, the loop took the wait for one that had found nothing and slept until the spool's
    // next look in its folder (30 s).
    await eventually(() => Promise.resolve(intake.spoolDepth === 0 ? true : undefined), 'the spool to drain');
    expect(refused).toBe(3);
  });

  it("hands a connection's deliveries straight to Temporal while another connection's wait in the spool", async () => {
    const taken: string[] = [];
    const intake = await open((delivery) => {
      // Its workflow takes no signal, for good.
      if (delivery.connectionId === 'conn-stuck') return Promise.reject(new Error('unavailable'));
      taken.push(delivery.objectId);
      return Promise.resolve();
    });
    expect(await intake.accept({ ...event('stuck'), connectionId: 'conn-stuck' })).toBe('spooled');
    // Spooled behind a failure (Temporal may be away), replayed at once, showing Temporal takes.
    expect(await intake.accept({ ...event('first'), connectionId: 'conn-other' })).toBe('spooled');
    // Handed off and removed: only the stuck connection's delivery is left.
    await eventually(
      () => Promise.resolve(intake.spoolDepth === 1 ? true : undefined),
      'the first handed off',
    );
    // Before, every delivery went through the disk while any waited there.
    expect(await intake.accept({ ...event('second'), connectionId: 'conn-other' })).toBe('delivered');
    expect(await intake.accept({ ...event('new'), connectionId: 'conn-new' })).toBe('delivered');
    expect(intake.spoolDepth).toBe(1);
  });

  it('spools at once, trying no hand-off, while Temporal takes nothing', async () => {
    const tried: string[] = [];
    const intake = new DeliveryIntake(
      await DeliverySpool.open(dir),
      (delivery) => {
        tried.push(delivery.objectId);
        return Promise.reject(new Error('unavailable'));
      },
      { minBackoffMs: 10, maxBackoffMs: 20 },
    );
    opened.push(intake);
    // No replay running: only a delivery's own way in tries Temporal.
    expect(await intake.accept({ ...event('a'), connectionId: 'conn-a' })).toBe('spooled');
    expect(await intake.accept({ ...event('b'), connectionId: 'conn-b' })).toBe('spooled');
    expect(tried).toEqual(['a']);
  });

  it('tries Temporal again every so often while it seemed away, one delivery at a time', async () => {
    const temporal = temporalStandIn();
    temporal.state.up = false;
    const tried: string[] = [];
    const intake = new DeliveryIntake(
      await DeliverySpool.open(dir),
      (delivery) => {
        tried.push(delivery.objectId);
        return temporal.handOff(delivery);
      },
      { minBackoffMs: 10, maxBackoffMs: 20, probeAfterMs: 200 },
    );
    opened.push(intake);
    // No replay running, and what is spooled cannot show Temporal back: a delivery has to.
    expect(await intake.accept({ ...event('a'), connectionId: 'conn-a' })).toBe('spooled');
    temporal.state.up = true;
    expect(await intake.accept({ ...event('b'), connectionId: 'conn-b' })).toBe('spooled');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await intake.accept({ ...event('c'), connectionId: 'conn-c' })).toBe('delivered');
    expect(await intake.accept({ ...event('d'), connectionId: 'conn-d' })).toBe('delivered');
    expect(tried).toEqual(['a', 'c', 'd']);
  });

  it("hands a delivery straight on when the spool is full of another connection's, though Temporal seemed away", async () => {
    let refuseNext = true;
    const taken: string[] = [];
    const intake = new DeliveryIntake(
      await DeliverySpool.open(dir, { maxEntries: 2 }),
      (delivery) => {
        // The stuck connection's workflow refuses its signals; the first refusal looks like an outage.
        if (delivery.connectionId === 'conn-stuck' || refuseNext) {
          refuseNext = false;
          return Promise.reject(new Error('unavailable'));
        }
        taken.push(delivery.objectId);
        return Promise.resolve();
      },
      { minBackoffMs: 10, maxBackoffMs: 20 },
    );
    opened.push(intake);
    expect(await intake.accept({ ...event('s1'), connectionId: 'conn-stuck' })).toBe('spooled');
    expect(await intake.accept({ ...event('s2'), connectionId: 'conn-stuck' })).toBe('spooled');
    // Before, it went to the full spool and was refused, and so was every delivery after it.
    expect(await intake.accept({ ...event('x'), connectionId: 'conn-x' })).toBe('delivered');
    await expect(intake.accept({ ...event('s3'), connectionId: 'conn-stuck' })).rejects.toThrow(
      SpoolFullError,
    );
    expect(taken).toEqual(['x']);
  });

  it("says once when a connection's deliveries have waited long, and how long the longest wait is", async () => {
    const said: Array<{ message: string; fields?: Record<string, string | number> }> = [];
    let tries = 0;
    const intake = new DeliveryIntake(
      await DeliverySpool.open(dir),
      () => {
        tries += 1;
        return Promise.reject(new Error('unavailable'));
      },
      {
        minBackoffMs: 10,
        maxBackoffMs: 20,
        longWaitMs: 100,
        log: (message, fields) => said.push({ message, ...(fields ? { fields } : {}) }),
      },
    );
    opened.push(intake);
    intake.start();
    expect(intake.longestWaitMs()).toBe(0);
    await intake.accept({ ...event('stuck'), connectionId: 'conn-stuck' });
    const tried = await eventually(
      () => Promise.resolve(said.some((line) => /wait for Temporal/.test(line.message)) ? tries : undefined),
      'the long wait said',
    );
    await eventually(() => Promise.resolve(tries >= tried + 3 ? true : undefined), 'three more tries');
    const longWaits = said.filter((line) => /wait for Temporal/.test(line.message));
    expect(longWaits).toHaveLength(1);
    expect(longWaits[0]?.fields).toMatchObject({ entry: '000000000001.json', failure: 'Error' });
    expect(JSON.stringify(said)).not.toContain('conn-stuck');
    expect(intake.longestWaitMs()).toBeGreaterThanOrEqual(100);
  });

  it("hands other connections' deliveries on while many connections' spooled deliveries keep failing", async () => {
    const taken: string[] = [];
    const stuckTries = new Map<string, number>();
    const intake = await open((delivery) => {
      // Their workflows take no signal for now (busy, or over a limit of their runs).
      if (delivery.connectionId.startsWith('conn-stuck')) {
        stuckTries.set(delivery.objectId, (stuckTries.get(delivery.objectId) ?? 0) + 1);
        return Promise.reject(new Error('unavailable'));
      }
      taken.push(delivery.objectId);
      return Promise.resolve();
    });
    // More than a replay round takes, over more connections than a round has room for at 8 each:
    // before, they filled every round ahead of the others.
    for (let connection = 0; connection < 10; connection += 1)
      for (let n = 0; n < 10; n += 1)
        expect(
          await intake.accept({
            ...event(`stuck-${connection}-${n}`),
            connectionId: `conn-stuck-${connection}`,
          }),
        ).toBe('spooled');
    expect(await intake.accept({ ...event('other'), connectionId: 'conn-other' })).toBe('spooled');
    await eventually(
      () => Promise.resolve(taken.includes('other') ? true : undefined),
      "the other connection's delivery handed off",
    );
    // Each stuck connection tries only its head, at its own pace; they still wait, in order.
    expect([...stuckTries.keys()].every((objectId) => objectId.endsWith('-0'))).toBe(true);
    expect(intake.spoolDepth).toBe(100);
  });

  it('says once that Temporal refuses a connection, however many of the others go in meanwhile', async () => {
    const said: string[] = [];
    const taken: string[] = [];
    let stuckTries = 0;
    const intake = new DeliveryIntake(
      await DeliverySpool.open(dir),
      (delivery) => {
        if (delivery.connectionId === 'conn-stuck') {
          stuckTries += 1;
          return Promise.reject(new Error('unavailable'));
        }
        taken.push(delivery.objectId);
        return Promise.resolve();
      },
      { minBackoffMs: 10, maxBackoffMs: 20, log: (message) => said.push(message) },
    );
    opened.push(intake);
    intake.start();
    await intake.accept({ ...event('stuck'), connectionId: 'conn-stuck' });
    // Others keep coming (spooled behind it) and go in, round after round, while it is retried.
    for (let n = 0; stuckTries < 6; n += 1) {
      await intake.accept({ ...event(`other-${n}`), connectionId: 'conn-other' });
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await eventually(
      () => Promise.resolve(intake.spoolDepth === 1 ? true : undefined),
      'the others handed off',
    );
    expect(said.filter((message) => /not taking the spooled deliveries/.test(message))).toHaveLength(1);
  });

  it('goes on when a spooled file is removed by hand', async () => {
    const temporal = temporalStandIn();
    temporal.state.up = false;
    const events: unknown[] = [];
    const spool = await DeliverySpool.open(dir, {
      log: (message, fields, level) => events.push({ message, fields, level }),
    });
    const intake = new DeliveryIntake(spool, temporal.handOff, { minBackoffMs: 10, maxBackoffMs: 20 });
    opened.push(intake);
    await intake.accept(event('gone'));
    await intake.accept(event('kept'));
    await rm(join(dir, '000000000001.json'));
    temporal.state.up = true;
    intake.start();
    await eventually(() => Promise.resolve(intake.spoolDepth === 0 ? true : undefined), 'the spool to drain');
    expect(temporal.state.taken).toEqual(['kept']);
    expect(events).toEqual([
      { message: 'spool entry has gone', fields: { entry: '000000000001.json' }, level: 'warn' },
    ]);
  });

  it('says once, while Temporal keeps refusing them, why the deliveries left in the spool do not drain', async () => {
    const away = temporalStandIn();
    away.state.up = false;
    const crashed = await open(away.handOff);
    await crashed.accept(event('left'));
    await crashed.close();
    // Its process died: its spool's lock is no longer renewed, and goes stale.
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'receiver.lock'), minuteAgo, minuteAgo);
    const events: Array<{ message: string; level?: string }> = [];
    let attempts = 0;
    const temporal = temporalStandIn();
    temporal.state.up = false;
    const intake = new DeliveryIntake(
      await DeliverySpool.open(dir),
      (delivery) => {
        attempts += 1;
        return temporal.handOff(delivery);
      },
      {
        minBackoffMs: 10,
        maxBackoffMs: 20,
        log: (message, _fields, level) => events.push({ message, level }),
      },
    );
    opened.push(intake);
    intake.start();
    await eventually(() => Promise.resolve(attempts >= 3 ? true : undefined), 'three refused replays');
    temporal.state.up = true;
    await eventually(() => Promise.resolve(intake.spoolDepth === 0 ? true : undefined), 'the spool to drain');
    expect(events.filter((said) => /not taking the spooled deliveries/.test(said.message))).toEqual([
      { message: 'Temporal is not taking the spooled deliveries: retrying until it does', level: 'warn' },
    ]);
    expect(temporal.state.taken).toEqual(['left']);
  });

  it('replays what a crashed receiver left in the spool', async () => {
    const away = temporalStandIn();
    away.state.up = false;
    const crashed = await open(away.handOff);
    await crashed.accept(event('x'));
    await crashed.accept(event('y'));
    await crashed.close();
    // Its process died: its spool's lock is no longer renewed, and goes stale.
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'receiver.lock'), minuteAgo, minuteAgo);
    const temporal = temporalStandIn();
    const restarted = await open(temporal.handOff);
    await eventually(
      () => Promise.resolve(restarted.spoolDepth === 0 ? true : undefined),
      'the spool to drain',
    );
    expect(temporal.state.taken).toEqual(['x', 'y']);
  });
});
