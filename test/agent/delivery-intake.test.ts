import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeliveryIntake,
  HandOffRefusedError,
  REFUSED_ROUNDS_BEFORE_SET_ASIDE,
} from '../../workers/receiver/delivery-intake';
import { DeliverySpool } from '../../workers/receiver/delivery-spool';
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

  it("hands other connections' deliveries on while one connection's many spooled deliveries keep failing", async () => {
    const taken: string[] = [];
    let stuckTries = 0;
    const intake = await open((delivery) => {
      // Its workflow does not take signals for now (busy, or over a limit of its run).
      if (delivery.connectionId === 'conn-stuck') {
        stuckTries += 1;
        return Promise.reject(new Error('unavailable'));
      }
      taken.push(delivery.objectId);
      return Promise.resolve();
    });
    // More than a replay round takes: before, they filled every round ahead of the others.
    for (let n = 0; n < 100; n += 1)
      expect(await intake.accept({ ...event(`stuck-${n}`), connectionId: 'conn-stuck' })).toBe('spooled');
    expect(await intake.accept({ ...event('other'), connectionId: 'conn-other' })).toBe('spooled');
    await eventually(
      () => Promise.resolve(taken.includes('other') ? true : undefined),
      "the other connection's delivery handed off",
    );
    expect(stuckTries).toBeGreaterThan(0);
    // Still waiting, in order, for their workflow.
    expect(intake.spoolDepth).toBe(100);
  });

  /** An intake whose hand-off refuses, as Temporal would for their workflow, the events `refuses` says. */
  const refusingIntake = async (refuses: (delivery: AgentEvent) => boolean, refusedForMs: number) => {
    const taken: string[] = [];
    const said: Array<{ message: string; level?: string }> = [];
    let refusals = 0;
    let setAside = 0;
    const intake = new DeliveryIntake(
      await DeliverySpool.open(dir),
      (delivery) => {
        if (refuses(delivery)) {
          refusals += 1;
          return Promise.reject(new HandOffRefusedError('refused for its workflow'));
        }
        taken.push(delivery.objectId);
        return Promise.resolve();
      },
      {
        minBackoffMs: 10,
        maxBackoffMs: 20,
        refusedForMs,
        log: (message, _fields, level) => said.push({ message, level }),
        onSetAside: () => (setAside += 1),
      },
    );
    opened.push(intake);
    intake.start();
    return { intake, taken, said, refusals: () => refusals, setAside: () => setAside };
  };
  const refusedFiles = async () => (await readdir(dir)).filter((file) => file.endsWith('.refused')).sort();

  it("sets aside the deliveries their connection's workflow keeps refusing while others go in, and the connection goes on", async () => {
    const wedged = (delivery: AgentEvent) =>
      delivery.connectionId === 'conn-1' && delivery.objectId !== 'after';
    const { intake, taken, said, refusals, setAside } = await refusingIntake(wedged, 200);
    expect(await intake.accept(event('refused-1'))).toBe('spooled');
    expect(await intake.accept(event('refused-2'))).toBe('spooled');
    expect(await intake.accept(event('after'))).toBe('spooled');
    // Another connection's deliveries go in meanwhile: Temporal takes events, not this workflow's.
    for (let n = 0; n < 5; n += 1) {
      await intake.accept({ ...event(`other-${n}`), connectionId: 'conn-2' });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await eventually(() => Promise.resolve(intake.spoolDepth === 0 ? true : undefined), 'the spool to drain');
    expect(taken.filter((id) => id !== 'after')).toEqual([
      'other-0',
      'other-1',
      'other-2',
      'other-3',
      'other-4',
    ]);
    expect(taken).toContain('after');
    expect(refusals()).toBeGreaterThanOrEqual(1 + REFUSED_ROUNDS_BEFORE_SET_ASIDE);
    expect(await refusedFiles()).toEqual(['000000000001.json.refused', '000000000002.json.refused']);
    expect(setAside()).toBe(2);
    expect(said).toContainEqual({
      message: 'Temporal refuses a delivery for good: set aside, its connection goes on',
      level: 'error',
    });
  });

  it('sets nothing aside while Temporal refuses every connection alike (a namespace failing over)', async () => {
    let failingOver = true;
    const { intake, taken, refusals } = await refusingIntake(() => failingOver, 50);
    expect(await intake.accept(event('a'))).toBe('spooled');
    expect(await intake.accept({ ...event('b'), connectionId: 'conn-2' })).toBe('spooled');
    // Many rounds, well past the time a refusal lasts before it counts.
    await eventually(() => Promise.resolve(refusals() >= 20 ? true : undefined), 'many refused rounds');
    failingOver = false;
    await eventually(() => Promise.resolve(intake.spoolDepth === 0 ? true : undefined), 'the spool to drain');
    expect(taken.sort()).toEqual(['a', 'b']);
    expect(await refusedFiles()).toEqual([]);
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
