import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliverySpool, SpoolInUseError } from '../../workers/receiver/delivery-spool';
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
    // The process dies without closing: the next one takes the spool over.
    await writeFile(join(dir, 'receiver.pid'), '999999999\n');
    const reopened = await DeliverySpool.open(dir);
    expect(reopened.depth).toBe(2);
    await reopened.append(event('d'));
    const order: string[] = [];
    for (let entry = await reopened.oldest(); entry; entry = await reopened.oldest()) {
      order.push(entry.event.objectId);
      await reopened.remove(entry.name);
    }
    expect(order).toEqual(['b', 'c', 'd']);
  });

  it('drops a write that never completed and sets a damaged entry aside', async () => {
    const spool = await DeliverySpool.open(dir);
    await spool.append(event('kept'));
    await spool.close();
    await writeFile(join(dir, '000000000009.json.5f0c2a1e-0000-4000-8000-000000000000.tmp'), '{"half');
    await writeFile(join(dir, '000000000000.json'), 'not json');
    const reopened = await DeliverySpool.open(dir);
    expect((await reopened.oldest())?.event.objectId).toBe('kept');
    expect((await readdir(dir)).sort()).toEqual([
      '000000000000.json.corrupt',
      '000000000001.json',
      'receiver.pid',
    ]);
  });

  it('refuses a second live process', async () => {
    await DeliverySpool.open(dir);
    await writeFile(join(dir, 'receiver.pid'), `${process.ppid}\n`);
    await expect(DeliverySpool.open(dir)).rejects.toBeInstanceOf(SpoolInUseError);
  });
});
