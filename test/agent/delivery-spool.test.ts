import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeliverySpool,
  laneOf,
  ConnectionShareFullError,
  SpoolInUseError,
} from '../../workers/receiver/delivery-spool';
import { eventually } from '../harness/eventually';
import { type AgentEvent } from '../../agent-platform/shared/messages';

const event = (objectId: string): AgentEvent => ({
  tenant: 'tenant-1',
  connectionId: 'conn-1',
  messageType: 'new_connection',
  objectId,
  receivedAt: '2026-11-23T00:00:00.000Z',
});

describe('DeliverySpool', () => {
  let dir: string;
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'idv-spool-')), 'spool');
  });
  afterEach(async () => {
    await rm(join(dir, '..'), { recursive: true, force: true });
  });

  it('gives deliveries back oldest first, across a restart', async () => {
    const spool = await DeliverySpool.open(dir);
    for (const id of ['a', 'b', 'c']) await spool.append(event(id));
    const first = await spool.oldest();
    expect(first?.event.objectId).toBe('a');
    await spool.remove(first?.name ?? '');
    // The process dies without closing: its lock is no longer renewed, and once stale the next
    // process takes the spool over.
    await spool.close();
    await mkdir(join(dir, 'receiver.lock'));
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'receiver.lock'), minuteAgo, minuteAgo);
    const reopened = await DeliverySpool.open(dir, { lockWaitMs: 0 });
    expect(reopened.depth).toBe(2);
    await reopened.append(event('d'));
    const order: string[] = [];
    for (let entry = await reopened.oldest(); entry; entry = await reopened.oldest()) {
      order.push(entry.event.objectId);
      await reopened.remove(entry.name);
    }
    expect(order).toEqual(['b', 'c', 'd']);
    await reopened.close();
  });

  it("refuses a connection's deliveries past its share, and still takes the others'", async () => {
    const spool = await DeliverySpool.open(dir, { maxEntriesPerConnection: 2 });
    const other = { ...event('other'), connectionId: 'conn-2' };
    await spool.append(event('a'));
    await spool.append(event('b'));
    await expect(spool.append(event('c'))).rejects.toThrow(ConnectionShareFullError);
    await spool.append(other);
    // Taken by Temporal: room again for the connection.
    await spool.remove((await spool.oldest())?.name ?? '');
    await spool.append(event('c'));
    expect(spool.depth).toBe(3);
    await spool.close();
  });

  it("says a connection's next delivery passes none of its own only once nothing of it may be waiting", async () => {
    const spool = await DeliverySpool.open(dir);
    const lane = laneOf(event('a'));
    const otherLane = laneOf({ tenant: 'tenant-1', connectionId: 'conn-2' });
    expect(spool.holdsNoneOf(lane)).toBe(true);
    await spool.append(event('a'));
    expect(spool.holdsNoneOf(lane)).toBe(false);
    expect(spool.holdsNoneOf(otherLane)).toBe(true);
    await spool.close();
    // What a previous process left is read beside the receiver's work once the spool opens.
    const reopened = await DeliverySpool.open(dir);
    await reopened.lanesLearnt;
    expect(reopened.holdsNoneOf(otherLane)).toBe(true);
    expect(reopened.holdsNoneOf(lane)).toBe(false);
    const left = await reopened.oldest();
    await reopened.remove(left?.name ?? '');
    expect(reopened.holdsNoneOf(lane)).toBe(true);
    await reopened.close();
  });

  it("counts in a connection's share what a previous process left", async () => {
    const spool = await DeliverySpool.open(dir);
    await spool.append(event('a'));
    await spool.append(event('b'));
    await spool.close();
    const reopened = await DeliverySpool.open(dir, { maxEntriesPerConnection: 2 });
    await reopened.lanesLearnt;
    await expect(reopened.append(event('c'))).rejects.toThrow(ConnectionShareFullError);
    await reopened.append({ ...event('other'), connectionId: 'conn-2' });
    await reopened.close();
  });

  it('gives the spool up within its wait while an entry it reads at open never answers (a stalled disk)', async () => {
    const spool = await DeliverySpool.open(dir);
    await spool.append(event('a'));
    await spool.close();
    // A FIFO in the entry's place: reading it waits until someone writes to it, as a read from a
    // disk that stopped answering does.
    const [name] = (await readdir(dir)).filter((file) => file.endsWith('.json'));
    const stalled = join(dir, name as string);
    await rm(stalled);
    execFileSync('mkfifo', [stalled]);
    const reopened = await DeliverySpool.open(dir, { closeWaitMs: 100 });
    let closed = false;
    const closing = reopened.close().then(() => (closed = true));
    try {
      // The read under way ends only once the FIFO is opened for writing: until then `close` gave
      // up waiting or never returns.
      await eventually(() => Promise.resolve(closed ? true : undefined), 'the spool given up', 2_000);
    } finally {
      // Opened for reading and writing (which never waits on Linux), the reader is let go, so no
      // thread stays blocked past the test, whatever it found.
      const writer = await open(stalled, constants.O_RDWR);
      await writer.close();
      await reopened.lanesLearnt;
    }
    await closing;
    await rm(stalled);
    // Given up, so another process takes it at once.
    const next = await DeliverySpool.open(dir, { lockWaitMs: 0 });
    await next.close();
  });

  it('drops a write that never completed and sets a damaged entry aside', async () => {
    const spool = await DeliverySpool.open(dir);
    await spool.append(event('kept'));
    await spool.close();
    await writeFile(join(dir, '000000000009.json.5f0c2a1e-0000-4000-8000-000000000000.tmp'), '{"half');
    await writeFile(join(dir, '000000000000.json'), 'not json');
    // A lock file of an earlier release whose process has gone goes once the lock is held.
    await writeFile(join(dir, 'receiver.pid'), '999999999\n');
    const reopened = await DeliverySpool.open(dir);
    expect((await reopened.oldest())?.event.objectId).toBe('kept');
    expect((await readdir(dir)).sort()).toEqual([
      '000000000000.json.corrupt',
      '000000000001.json',
      'receiver.lock',
    ]);
    await reopened.close();
  });

  it('refuses a second holder while the first lives, whatever its pid (one process, or containers each pid 1)', async () => {
    const first = await DeliverySpool.open(dir);
    // Two holders would number their entries alike and overwrite each other's.
    await expect(DeliverySpool.open(dir, { lockWaitMs: 0 })).rejects.toBeInstanceOf(SpoolInUseError);
    await first.append(event('only'));
    await first.close();
    const next = await DeliverySpool.open(dir, { lockWaitMs: 0 });
    expect(next.depth).toBe(1);
    await next.close();
  });

  it('lands the appends under way before it gives the spool up, and takes none once closing', async () => {
    const spool = await DeliverySpool.open(dir);
    // A delivery being spooled while the receiver stops (a release): the next receiver numbers
    // its entries from what it finds, so an entry landing after the lock went would overwrite one.
    let landed = false;
    const underWay = spool.append(event('under-way')).then(() => (landed = true));
    const closing = spool.close();
    await expect(spool.append(event('too-late'))).rejects.toBeInstanceOf(SpoolInUseError);
    await closing;
    expect(landed).toBe(true);
    await underWay;
    const next = await DeliverySpool.open(dir, { lockWaitMs: 0 });
    expect((await next.oldest())?.event.objectId).toBe('under-way');
    expect(next.depth).toBe(1);
    await next.close();
  });

  it('never writes over an entry it did not number: it takes that one in and numbers on', async () => {
    const spool = await DeliverySpool.open(dir);
    await spool.append(event('first'));
    // An entry under the next number, landed by another writer since this one opened (a receiver
    // whose lock went stale, its write landing late): it may have been acknowledged, so it stays.
    await writeFile(join(dir, '000000000002.json'), JSON.stringify(event('landed-late')));
    await spool.append(event('second'));
    const entries = await spool.oldestEntries(10);
    expect(entries.map((entry) => entry.event.objectId)).toEqual(['first', 'landed-late', 'second']);
    expect(spool.depth).toBe(3);
    await spool.close();
  });

  it('replays, once idle, an entry another writer landed under a number it never reaches', async () => {
    const spool = await DeliverySpool.open(dir, { rescanMs: 0 });
    await spool.append(event('first'));
    const [first] = await spool.oldestEntries(10);
    await spool.remove(first?.name ?? '');
    // Far past this one's numbers: the other receiver's counter was ahead.
    await writeFile(join(dir, '000000009000.json'), JSON.stringify(event('landed-late')));
    expect((await spool.oldestEntries(10)).map((entry) => entry.event.objectId)).toEqual(['landed-late']);
    await spool.close();
  });

  it('refuses a spool that a live receiver of an earlier release holds by its pid file', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'receiver.pid'), `${process.ppid}\n`);
    await expect(DeliverySpool.open(dir, { lockWaitMs: 0 })).rejects.toBeInstanceOf(SpoolInUseError);
    // Once that receiver has stopped, the spool is taken (and its pid file goes).
    await writeFile(join(dir, 'receiver.pid'), '999999999\n');
    const spool = await DeliverySpool.open(dir, { lockWaitMs: 0 });
    expect(await readdir(dir)).toEqual(['receiver.lock']);
    await spool.close();
  });
});
