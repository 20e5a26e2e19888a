import { createHash, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { openPostgresStore, redactedUrl } from '../../stores/postgres/postgres-store';
import { SessionSecretMissingError } from '../../stores/session-vault';
import { emptyCounts } from '../../common/completion-bins';
import { harnessEnv, harnessValue } from '../harness/env';
import { createTestDatabase } from '../harness/postgres';
import { readAll } from '../harness/streams';

/** Opens a second handle on the same backing store, as another process would. */
interface StoreUnderTest {
  open(): Promise<IdvStore>;
  dispose(): Promise<void>;
}

const backends: Array<[string, () => Promise<StoreUnderTest>]> = [
  [
    'local directory',
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'idv-store-'));
      return {
        open: () => openLocalStore(directory),
        dispose: () => rm(directory, { recursive: true, force: true }),
      };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const database = await createTestDatabase(harnessValue(harnessEnv.postgresUrl));
      return { open: () => openPostgresStore(database.url), dispose: () => database.drop() };
    },
  ],
];

async function* chunksOf(bytes: Buffer, size: number, failAfter?: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) {
    await Promise.resolve(); // arrives as a stream would, one chunk per turn
    if (failAfter !== undefined && offset >= failAfter) throw new Error('the content failed midway');
    yield bytes.subarray(offset, offset + size);
  }
}

// The same contract for every store: what the activities, the client and the codec server rely on.
describe.each(backends)('store contract: %s', (_name, make) => {
  let backing: StoreUnderTest;
  let store: IdvStore;
  let other: IdvStore;
  beforeAll(async () => {
    backing = await make();
    store = await backing.open();
    other = await backing.open();
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await backing?.dispose();
  });

  describe('session vault', () => {
    const step = { method: 'LaunchBrowser', content: 'https://idv.example/launch', refresh: null };
    const claimOf = (workflowId: string, profileId: string, key = 'key-1') => ({
      workflowId,
      profileId,
      resultsAccessKey: key,
      dataKeyId: 'dk-1',
      collectionMethod: 'PollResult',
      nextStep: step,
    });

    it('keeps create attempts per profile until forgotten, each ended by what became of it', async () => {
      const profileId = randomUUID();
      const workflowId = `idv-${randomUUID()}`;
      const ids = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          store.vault.recordCreateAttempt({ workflowId, profileId, startedAtMs: n }),
        ),
      );
      await store.vault.recordCreateAttempt({ workflowId: 'idv-other', profileId, startedAtMs: 6 });
      expect(new Set(ids).size).toBe(5);
      const sessionId = randomUUID();
      await store.vault.endCreateAttempt(profileId, ids[2] as string, {
        endedAtMs: 10,
        settled: true,
        sessionId,
      });
      await store.vault.endCreateAttempt(profileId, 'no-such-attempt', { endedAtMs: 10, settled: true });
      const attempts = await other.vault.createAttempts(profileId, workflowId);
      expect(attempts.map((attempt) => attempt.startedAtMs)).toEqual([1, 2, 3, 4, 5]);
      expect(attempts.find((attempt) => attempt.sessionId)).toEqual({
        id: ids[2],
        workflowId,
        profileId,
        startedAtMs: 3,
        endedAtMs: 10,
        settled: true,
        sessionId,
      });
      expect(attempts.filter((attempt) => !attempt.settled)).toHaveLength(4);
      expect(await other.vault.createAttempts(profileId)).toHaveLength(6);
      expect(await other.vault.createAttempts(randomUUID())).toEqual([]);
      await store.vault.forgetCreateAttempts(profileId, ids);
      await store.vault.forgetCreateAttempts(profileId, ids);
      expect(await other.vault.createAttempts(profileId, workflowId)).toEqual([]);
      expect(await other.vault.createAttempts(profileId)).toHaveLength(1);
    });

    it('keeps the first session claimed for a verification and marks any other an orphan', async () => {
      const profileId = randomUUID();
      const workflowId = `idv-${randomUUID()}`;
      const first = randomUUID();
      const second = randomUUID();
      expect(await store.vault.claim(first, claimOf(workflowId, profileId))).toEqual({
        kept: { sessionId: first, collectionMethod: 'PollResult', nextStep: step },
      });
      // A retry of the claim answers the same; a second session hands over the first.
      expect(await other.vault.claim(first, claimOf(workflowId, profileId))).toMatchObject({
        kept: { sessionId: first },
      });
      expect(await other.vault.claim(second, claimOf(workflowId, profileId, 'key-2'))).toEqual({
        kept: { sessionId: first, collectionMethod: 'PollResult', nextStep: step },
      });
      expect(await store.vault.orphans(profileId)).toEqual([second]);
      // Its key is kept until the sweep destroys it.
      expect(await store.vault.accessKey(second)).toBe('key-2');
      // The verification's data key seals what the kept session gave, not the orphan: a
      // redaction of the orphan must not destroy it while the verification runs.
      expect(await other.vault.dataKeyOf(first)).toBe('dk-1');
      expect(await other.vault.dataKeyOf(second)).toBeUndefined();
      expect(await store.vault.closeCreation(workflowId, first)).toEqual([]);
      await store.vault.orphanSwept(second, profileId);
      await store.vault.orphanSwept(second, profileId);
      expect(await store.vault.orphans(profileId)).toEqual([]);
    });

    it('lets exactly one of two racing claims be kept', async () => {
      const profileId = randomUUID();
      const workflowId = `idv-${randomUUID()}`;
      const sessions = [randomUUID(), randomUUID()];
      const outcomes = await Promise.all([
        store.vault.claim(sessions[0] as string, claimOf(workflowId, profileId)),
        other.vault.claim(sessions[1] as string, claimOf(workflowId, profileId)),
      ]);
      const kept = outcomes.map((outcome) => ('kept' in outcome ? outcome.kept.sessionId : undefined));
      expect(kept[0]).toBe(kept[1]);
      expect(sessions).toContain(kept[0]);
      expect(await store.vault.orphans(profileId)).toEqual(sessions.filter((id) => id !== kept[0]));
    });

    it('marks every session claimed after its verification closed creation, and one it never learnt of', async () => {
      const profileId = randomUUID();
      const closedEmpty = `idv-${randomUUID()}`;
      expect(await store.vault.closeCreation(closedEmpty)).toEqual([]);
      const late = randomUUID();
      expect(await other.vault.claim(late, claimOf(closedEmpty, profileId))).toEqual({ closed: true });
      const unknownToIt = `idv-${randomUUID()}`;
      const landed = randomUUID();
      await store.vault.claim(landed, claimOf(unknownToIt, profileId));
      expect(await other.vault.closeCreation(unknownToIt)).toEqual([landed]);
      expect(await other.vault.closeCreation(unknownToIt)).toEqual([landed]);
      expect((await store.vault.orphans(profileId)).sort()).toEqual([late, landed].sort());
    });

    it('lets the sweep take a session nothing claimed, and then refuses a late claim of it', async () => {
      const profileId = randomUUID();
      const workflowId = `idv-${randomUUID()}`;
      const taken = randomUUID();
      expect(await store.vault.takeOrphan(taken, profileId)).toBe(true);
      expect(await other.vault.takeOrphan(taken, profileId)).toBe(false);
      expect(await store.vault.orphans(profileId)).toEqual([taken]);
      expect(await store.vault.accountedFor([taken])).toEqual(new Set([taken]));
      // The create whose answer came late: its session is the sweep's, not the verification's.
      expect(await other.vault.claim(taken, claimOf(workflowId, profileId))).toEqual({ swept: true });
      await expect(store.vault.accessKey(taken)).rejects.toBeInstanceOf(SessionSecretMissingError);
      // A session a verification claimed is not the sweep's to take.
      const kept = randomUUID();
      await store.vault.claim(kept, claimOf(workflowId, profileId));
      expect(await other.vault.takeOrphan(kept, profileId)).toBe(false);
    });

    it('refuses a new create attempt of a verification whose creation is closed', async () => {
      const workflowId = `idv-${randomUUID()}`;
      expect(await store.vault.creation(workflowId)).toBeUndefined();
      await other.vault.closeCreation(workflowId);
      expect(await store.vault.creation(workflowId)).toEqual({ closed: true });
    });

    it('keeps a session key until destroyed, then only the claim (whatever the id case)', async () => {
      const sessionId = randomUUID();
      const profileId = randomUUID();
      await store.vault.claim(sessionId, claimOf('idv-a', profileId));
      expect(await other.vault.accessKey(sessionId.toUpperCase())).toBe('key-1');
      expect(await other.vault.claimant(sessionId)).toBe('idv-a');
      await other.vault.destroy(sessionId);
      await other.vault.destroy(sessionId);
      await expect(store.vault.accessKey(sessionId)).rejects.toBeInstanceOf(SessionSecretMissingError);
      expect(await store.vault.claimant(sessionId)).toBe('idv-a');
      expect(await store.vault.dataKeyOf(sessionId)).toBe('dk-1');
      const unknown = randomUUID();
      await expect(store.vault.accessKey(unknown)).rejects.toBeInstanceOf(SessionSecretMissingError);
      expect(await store.vault.claimant(unknown)).toBeUndefined();
      expect(await store.vault.accountedFor([sessionId, unknown])).toEqual(new Set([sessionId]));
    });

    it('forgets with a purged verification’s creation the workflow ID its sessions were claimed under, keeping their tombstones', async () => {
      const profileId = randomUUID();
      const workflowId = `idv-purged-${randomUUID()}`;
      const kept = randomUUID();
      const orphan = randomUUID();
      await store.vault.claim(kept, claimOf(workflowId, profileId));
      await store.vault.claim(orphan, claimOf(workflowId, profileId));
      expect(await other.vault.creation(workflowId)).toEqual({ keptSessionId: kept, closed: false });
      await store.vault.closeCreation(workflowId, kept);
      for (const sessionId of [kept, orphan]) await store.vault.destroy(sessionId);
      expect(await other.vault.creation(workflowId)).toEqual({ keptSessionId: kept, closed: true });
      await other.vault.forgetCreation(workflowId);
      await other.vault.forgetCreation(workflowId);
      for (const sessionId of [kept, orphan]) {
        expect(await store.vault.claimant(sessionId)).toBeUndefined();
        expect(await store.vault.dataKeyOf(sessionId)).toBe('dk-1');
      }
      expect(await store.vault.accountedFor([kept, orphan])).toEqual(new Set([kept, orphan]));
      expect(await store.vault.creation(workflowId)).toBeUndefined();
    });

    it('keeps a destroyed session destroyed: a later claim of it is refused', async () => {
      const sessionId = randomUUID();
      const profileId = randomUUID();
      const workflowId = `idv-${randomUUID()}`;
      await store.vault.claim(sessionId, claimOf(workflowId, profileId));
      await other.vault.destroy(sessionId);
      expect(await store.vault.claim(sessionId, claimOf(workflowId, profileId))).toEqual({ swept: true });
      await expect(other.vault.accessKey(sessionId)).rejects.toBeInstanceOf(SessionSecretMissingError);
    });

    it('refuses what is not a session id', async () => {
      await expect(store.vault.accessKey('../../etc/passwd')).rejects.toThrow(/not a session id/);
      await expect(store.vault.createAttempts('../x')).rejects.toThrow(/not a verification profile id/);
    });
  });

  describe('data keys', () => {
    it('creates a key once, destroys it to a tombstone, and never reuses its id', async () => {
      const keyId = randomUUID();
      expect(await store.dataKeys.get(keyId)).toBeUndefined();
      expect(await store.dataKeys.create(keyId, 'k1:wrapped')).toBe(true);
      expect(await other.dataKeys.create(keyId, 'k1:other')).toBe(false);
      expect(await other.dataKeys.get(keyId)).toEqual({ state: 'live', wrapped: 'k1:wrapped' });
      expect(await other.dataKeys.destroy(keyId)).toBe(true);
      expect(await store.dataKeys.destroy(keyId)).toBe(true);
      expect(await store.dataKeys.get(keyId)).toEqual({
        state: 'destroyed',
        destroyedAt: expect.any(String),
      });
      expect(await store.dataKeys.create(keyId, 'k1:again')).toBe(false);
      expect(await store.dataKeys.get(keyId)).toMatchObject({ state: 'destroyed' });
      expect(await store.dataKeys.destroy(randomUUID())).toBe(false);
    });

    it('creates a key whole when two processes race for the id', async () => {
      const keyId = randomUUID();
      const created = await Promise.all([
        store.dataKeys.create(keyId, 'k1:first'),
        other.dataKeys.create(keyId, 'k1:second'),
      ]);
      expect(created.filter(Boolean)).toHaveLength(1);
      const record = await store.dataKeys.get(keyId);
      expect(['k1:first', 'k1:second']).toContain(record?.state === 'live' ? record.wrapped : undefined);
    });

    it('refuses a key id that could escape its place', async () => {
      await expect(store.dataKeys.get('../x')).rejects.toThrow(/not a data key id/);
    });
  });

  describe('data keys: re-wrapping', () => {
    it('re-wraps a live key only from the form it has, and lists the keys under other key-encryption keys', async () => {
      const [a, b] = [`rw-${randomUUID()}`, `rw-${randomUUID()}`];
      await store.dataKeys.create(a, 'kek-old:a');
      await store.dataKeys.create(b, 'kek-new:b');
      const elsewhere = await store.dataKeys.wrappedElsewhere('kek-new', { limit: 1000 });
      expect(elsewhere).toContainEqual({ keyId: a, wrapped: 'kek-old:a' });
      expect(elsewhere.map((entry) => entry.keyId)).not.toContain(b);
      expect(await other.dataKeys.rewrap(a, 'kek-stale:a', 'kek-new:a2')).toBe(false);
      expect(await other.dataKeys.rewrap(a, 'kek-old:a', 'kek-new:a2')).toBe(true);
      expect(await store.dataKeys.get(a)).toEqual({ state: 'live', wrapped: 'kek-new:a2' });
      expect(
        (await store.dataKeys.wrappedElsewhere('kek-new', { limit: 1000 })).map((e) => e.keyId),
      ).not.toContain(a);
    });

    it('lets only one of two re-wraps from the same form win', async () => {
      const keyId = `rw-${randomUUID()}`;
      await store.dataKeys.create(keyId, 'kek-a:AAAA');
      const won = await Promise.all([
        store.dataKeys.rewrap(keyId, 'kek-a:AAAA', 'kek-b:BBBB'),
        other.dataKeys.rewrap(keyId, 'kek-a:AAAA', 'kek-c:CCCC'),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store.dataKeys.get(keyId)).toEqual({
        state: 'live',
        wrapped: won[0] ? 'kek-b:BBBB' : 'kek-c:CCCC',
      });
    });

    it('never brings a destroyed key back by re-wrapping it', async () => {
      const keyId = `rw-${randomUUID()}`;
      await store.dataKeys.create(keyId, 'kek-old:x');
      await other.dataKeys.destroy(keyId);
      expect(await store.dataKeys.rewrap(keyId, 'kek-old:x', 'kek-new:x')).toBe(false);
      expect(await store.dataKeys.get(keyId)).toMatchObject({ state: 'destroyed' });
      expect(
        (await store.dataKeys.wrappedElsewhere('kek-new', { limit: 1000 })).map((e) => e.keyId),
      ).not.toContain(keyId);
    });
  });

  describe('completion times', () => {
    const counts = (bin: number, events: number, exposureMs: number) => {
      const each = emptyCounts();
      each.events[bin] = events;
      each.exposureMs[bin] = exposureMs;
      return each;
    };

    it('reads no counts before any were written', async () => {
      expect((await store.completionTimes.read()).size).toBe(0);
    });

    it('adds every process’s counts into one total per provider', async () => {
      const provider = `p-${randomUUID()}`;
      await store.completionTimes.add(new Map([[provider, counts(3, 2, 1_000)]]));
      await other.completionTimes.add(new Map([[provider, counts(3, 1, 500)]]));
      await store.completionTimes.add(
        new Map([
          [provider, counts(40, 1, 0)],
          ['other', counts(1, 0, 10)],
        ]),
      );
      for (const handle of [store, other]) {
        const totals = await handle.completionTimes.read();
        expect(totals.get(provider)?.events[3]).toBe(3);
        expect(totals.get(provider)?.exposureMs[3]).toBe(1_500);
        expect(totals.get(provider)?.events[40]).toBe(1);
        expect(totals.get('other')?.exposureMs[1]).toBeGreaterThanOrEqual(10);
      }
    });
  });

  describe('verification records', () => {
    const profileId = randomUUID();
    const start = (reference: string) => ({
      reference,
      verificationProfileId: profileId,
      provider: 'yoti',
      dataKeyId: `dk-${reference}`,
      status: 'started' as const,
      startedAt: '2026-01-02T03:04:05.000Z',
    });
    const ending = (reference: string, status: 'succeeded' | 'failed' = 'succeeded') => ({
      verificationProfileId: profileId,
      provider: 'yoti',
      startedAt: '2026-01-02T03:04:05.000Z',
      dataKeyId: `dk-${reference}`,
      status,
      sessionId: randomUUID(),
      endedAt: '2026-01-02T03:05:00.000Z',
      redactionDueAt: '2026-01-03T03:05:00.000Z',
    });

    it('keeps one record per reference: the first reservation wins, the others are told it', async () => {
      const reference = `ref-${randomUUID()}`;
      const results = await Promise.all([
        store.records.reserve(start(reference)),
        other.records.reserve(start(reference)),
      ]);
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(results.map((result) => result.record.reference)).toEqual([reference, reference]);
      expect(await other.records.get(reference)).toMatchObject({
        reference,
        status: 'started',
        provider: 'yoti',
      });
    });

    it('records the first ending and the erasure, never rewritten', async () => {
      const reference = `ref-${randomUUID()}`;
      await store.records.reserve(start(reference));
      const first = ending(reference);
      await store.records.ended(reference, first);
      await other.records.ended(reference, ending(reference, 'failed'));
      await store.records.redacted(reference, '2026-01-03T04:00:00.000Z');
      await other.records.redacted(reference, '2026-01-04T04:00:00.000Z');
      expect(await store.records.get(reference)).toEqual({
        ...start(reference),
        status: 'succeeded',
        sessionId: first.sessionId,
        endedAt: first.endedAt,
        redactionDueAt: first.redactionDueAt,
        redactedAt: '2026-01-03T04:00:00.000Z',
      });
    });

    it('keeps the keys of the starts its reference took over, but the key of the verification that ran', async () => {
      const reference = `ref-${randomUUID()}`;
      await store.records.reserve(start(reference));
      const taker = { dataKeyId: 'dk-taker', startedAt: '2026-01-02T03:04:06.000Z' };
      expect(await other.records.restarted(reference, taker)).toBe(true);
      expect(await store.records.get(reference)).toMatchObject({
        dataKeyId: 'dk-taker',
        supersededKeyIds: [`dk-${reference}`],
      });
      // The first start's verification ran after all (it reached Temporal first).
      await other.records.ended(reference, ending(reference));
      expect(await store.records.get(reference)).toMatchObject({
        dataKeyId: `dk-${reference}`,
        supersededKeyIds: ['dk-taker'],
      });
      expect(await store.records.restarted(reference, { ...taker, dataKeyId: 'dk-late' })).toBe(false);
    });

    it('takes no ending that ended before its start under a key it never named (a late one of a purged record)', async () => {
      const reference = `ref-${randomUUID()}`;
      await store.records.reserve({ ...start(reference), startedAt: '2026-02-01T00:00:00.000Z' });
      // The ending of the reference's earlier verification, erased and purged since, landing late.
      await other.records.ended(reference, { ...ending(reference, 'failed'), dataKeyId: 'dk-purged' });
      expect(await store.records.get(reference)).toEqual({
        ...start(reference),
        startedAt: '2026-02-01T00:00:00.000Z',
      });
      const own = {
        ...ending(reference),
        startedAt: '2026-02-01T00:00:00.000Z',
        endedAt: '2026-02-01T00:05:00.000Z',
      };
      await store.records.ended(reference, own);
      expect(await other.records.get(reference)).toEqual({
        ...start(reference),
        ...own,
        reference,
      });
    });

    it('takes no erasure of a verification whose key the record never named (a late one of a purged record)', async () => {
      const reference = `ref-${randomUUID()}`;
      await store.records.reserve(start(reference));
      await other.records.redacted(reference, '2026-01-02T03:04:06.000Z', 'dk-purged');
      expect(await store.records.get(reference)).toEqual(start(reference));
      // Still a start a later one may take over: nothing was erased under it.
      const taker = { dataKeyId: 'dk-taker', startedAt: '2026-01-02T03:04:07.000Z' };
      expect(await store.records.restarted(reference, taker)).toBe(true);
      // Its own verification's erasure, and one naming the key it took over, count.
      await other.records.redacted(reference, '2026-01-02T03:04:08.000Z', `dk-${reference}`);
      expect(await store.records.get(reference)).toMatchObject({ redactedAt: '2026-01-02T03:04:08.000Z' });
    });

    it('names every key of take-overs made at once (two processes retrying one start)', async () => {
      const reference = `ref-${randomUUID()}`;
      await store.records.reserve(start(reference));
      const takers = ['dk-first', 'dk-second', 'dk-third'].map((dataKeyId, n) => ({
        dataKeyId,
        startedAt: `2026-01-02T03:04:0${6 + n}.000Z`,
      }));
      const taken = await Promise.all(
        takers.map((taker, n) => (n % 2 === 0 ? store : other).records.restarted(reference, taker)),
      );
      expect(taken).toEqual([true, true, true]);
      const record = await other.records.get(reference);
      // One of them is the start that stands; the others are named as superseded, for an erasure.
      const named = [record?.dataKeyId, ...(record?.supersededKeyIds ?? [])].sort();
      expect(named).toEqual([`dk-${reference}`, 'dk-first', 'dk-second', 'dk-third'].sort());
      expect(takers.map((taker) => taker.dataKeyId)).toContain(record?.dataKeyId);
    });

    it('takes over no start whose data was erased: the erasure is final', async () => {
      const reference = `ref-${randomUUID()}`;
      await store.records.reserve(start(reference));
      await other.records.redacted(reference, '2026-01-02T03:04:07.000Z');
      const taker = { dataKeyId: 'dk-taker', startedAt: '2026-01-02T03:04:08.000Z' };
      expect(await store.records.restarted(reference, taker)).toBe(false);
      expect(await other.records.get(reference)).toMatchObject({ dataKeyId: `dk-${reference}` });
    });

    it('makes the record of a verification whose start made none, at its ending', async () => {
      const reference = `ref-${randomUUID()}`;
      const end = ending(reference);
      await store.records.ended(reference, end);
      expect(await other.records.get(reference)).toMatchObject({
        reference,
        verificationProfileId: end.verificationProfileId,
        status: 'succeeded',
        startedAt: end.startedAt,
      });
    });

    it('lists by filter in reference order, and purges only records erased before a time', async () => {
      const prefix = `list-${randomUUID().slice(0, 8)}`;
      const [done, due, kept, running] = ['a', 'b', 'c', 'd'].map((letter) => `${prefix}-${letter}`) as [
        string,
        string,
        string,
        string,
      ];
      for (const reference of [done, due, kept, running]) await store.records.reserve(start(reference));
      await store.records.ended(done, ending(done));
      await store.records.ended(due, ending(due, 'failed'));
      await store.records.ended(kept, { ...ending(kept), redactionDueAt: undefined });
      await store.records.redacted(done, '2026-01-03T04:00:00.000Z');
      const mine = async (filter: Omit<Parameters<typeof store.records.list>[0], 'limit'>) =>
        (await other.records.list({ ...filter, limit: 1000 }))
          .map((record) => record.reference)
          .filter((reference) => reference.startsWith(prefix));
      expect(await mine({})).toEqual([done, due, kept, running]);
      expect(await mine({ status: 'failed' })).toEqual([due]);
      expect(await mine({ redaction: 'done' })).toEqual([done]);
      expect(await mine({ redaction: 'due' })).toEqual([due]);
      expect(await mine({ redaction: 'kept' })).toEqual([kept]);
      expect(await mine({ after: due })).toEqual([kept, running]);
      expect(await mine({ startedBefore: '2026-01-02T03:04:05.000Z' })).toEqual([]);
      expect((await other.records.list({ limit: 1 })).length).toBe(1);

      expect(await store.records.purge('2026-01-03T04:00:00.000Z')).not.toContain(done);
      expect(await store.records.purge('2026-01-03T05:00:00.000Z')).toContain(done);
      expect(await mine({})).toEqual([due, kept, running]);
      // The reference is free again: a new record starts clean.
      expect((await store.records.reserve(start(done))).record).toEqual(start(done));
    });

    it('keeps a record whose purge stopped before it, for a later purge', async () => {
      const reference = `purge-${randomUUID().slice(0, 8)}`;
      await store.records.reserve(start(reference));
      await store.records.ended(reference, ending(reference));
      await store.records.redacted(reference, '2026-01-01T00:00:00.000Z');
      const erasedBefore = '2026-01-01T00:00:00.001Z';
      // What goes with the record (its closed creation) fails to go: the record stays.
      await expect(
        store.records.purge(erasedBefore, async (purging) => {
          if (purging === reference) throw new Error('the store went away');
          return Promise.resolve();
        }),
      ).rejects.toThrow(/went away/);
      expect(await other.records.get(reference)).toMatchObject({ redactedAt: '2026-01-01T00:00:00.000Z' });
      const seen: Array<string | undefined> = [];
      expect(
        await store.records.purge(erasedBefore, async (purging) => {
          if (purging === reference) seen.push((await other.records.get(purging))?.reference);
        }),
      ).toContain(reference);
      // Run while the record still stood; gone after.
      expect(seen).toEqual([reference]);
      expect(await other.records.get(reference)).toBeUndefined();
    });

    it('refuses a reference that could escape its place', async () => {
      await expect(store.records.get('../x')).rejects.toThrow(/not a verification reference/);
    });
  });

  describe('blobs', () => {
    const content = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < content.length; i += 1) content[i] = (i * 31) % 251;
    const sha256 = createHash('sha256').update(content).digest('hex');

    it('stores a blob as it streams in, and reads it back whole from another handle', async () => {
      const sessionId = randomUUID();
      const stored = await store.blobs.put(sessionId, 'front', chunksOf(content, 48 * 1024));
      expect(stored).toMatchObject({ sha256, sizeBytes: content.length });
      expect(stored.uri).toContain(sessionId);
      expect((await readAll(await other.blobs.read(sessionId, 'front')))?.equals(content)).toBe(true);
    });

    it('keeps the previous blob when a replacement fails midway, and replaces it when whole', async () => {
      const sessionId = randomUUID();
      await store.blobs.put(sessionId, 'front', chunksOf(Buffer.from('first version'), 4));
      await expect(
        store.blobs.put(sessionId, 'front', chunksOf(content, 64 * 1024, 2 * 1024 * 1024)),
      ).rejects.toThrow(/midway/);
      expect((await readAll(await other.blobs.read(sessionId, 'front')))?.toString()).toBe('first version');
      await expect(store.blobs.put(sessionId, 'back', chunksOf(content, 64 * 1024, 0))).rejects.toThrow();
      expect(await other.blobs.read(sessionId, 'back')).toBeUndefined();
      await store.blobs.put(sessionId, 'front', chunksOf(Buffer.from('second'), 4));
      expect((await readAll(await other.blobs.read(sessionId, 'front')))?.toString()).toBe('second');
    });

    it('serves other calls while many slow uploads are under way', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      async function* slow(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('first part ');
        await gate;
        yield Buffer.from('second part');
      }
      const sessionId = randomUUID();
      const uploads = Array.from({ length: 12 }, (_, i) => store.blobs.put(sessionId, `part-${i}`, slow()));
      // More uploads than pooled connections: none may hold one while its content trickles in.
      expect(await store.dataKeys.get(randomUUID())).toBeUndefined();
      expect(await store.blobs.read(sessionId, 'part-0')).toBeUndefined();
      release();
      await Promise.all(uploads);
      expect((await readAll(await other.blobs.read(sessionId, 'part-11')))?.toString()).toBe(
        'first part second part',
      );
      expect(await store.blobs.deleteSession(sessionId)).toBe(12);
    });

    it('never brings a blob back when the session is deleted while it is being stored', async () => {
      const sessionId = randomUUID();
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let firstStored: () => void = () => undefined;
      const firstPart = new Promise<void>((resolve) => (firstStored = resolve));
      async function* halted(): AsyncGenerator<Uint8Array> {
        yield Buffer.alloc(2 * 1024 * 1024, 1);
        // Asked for more: the store has written the first part.
        firstStored();
        await gate;
        yield Buffer.alloc(1024, 2);
      }
      const storing = store.blobs.put(sessionId, 'front', halted()).catch((error: unknown) => error);
      await firstPart;
      await other.blobs.deleteSession(sessionId);
      release();
      // Refused (cross-realm errors of node:fs are not `instanceof Error` under jest).
      expect(await storing).toEqual(expect.objectContaining({ message: expect.any(String) }));
      expect(await other.blobs.read(sessionId, 'front')).toBeUndefined();
    });

    it('refuses a blob for a session whose data was deleted (a late write after the redaction)', async () => {
      const sessionId = randomUUID();
      await store.blobs.put(sessionId, 'front', chunksOf(Buffer.alloc(10, 1), 5));
      expect(await other.blobs.deleteSession(sessionId)).toBe(1);
      const late = await store.blobs
        .put(sessionId, 'front', chunksOf(Buffer.alloc(10, 2), 5))
        .catch((error: unknown) => error);
      expect(late).toEqual(expect.objectContaining({ message: expect.stringMatching(/deleted/) }));
      expect(await other.blobs.read(sessionId, 'front')).toBeUndefined();
      expect(await other.blobs.deleteSession(sessionId)).toBe(0);
    });

    it('gives a reader one version whole, or an error, never a mix of two', async () => {
      const sessionId = randomUUID();
      const first = Buffer.alloc(3 * 1024 * 1024, 1);
      await store.blobs.put(sessionId, 'front', chunksOf(first, 256 * 1024));
      const reading = (await other.blobs.read(sessionId, 'front'))?.[Symbol.asyncIterator]();
      const head = await reading?.next();
      await store.blobs.put(sessionId, 'front', chunksOf(Buffer.alloc(3 * 1024 * 1024, 2), 256 * 1024));
      const rest: Buffer[] = [];
      const outcome = await (async () => {
        for (let next = await reading?.next(); next && !next.done; next = await reading?.next())
          rest.push(next.value);
      })().then(
        () => 'read',
        () => 'refused',
      );
      if (outcome === 'read')
        expect(Buffer.concat([head?.value as Buffer, ...rest]).equals(first)).toBe(true);
    });

    it('deletes every blob of a session, counting them, idempotently', async () => {
      const sessionId = randomUUID();
      const kept = randomUUID();
      await store.blobs.put(sessionId, 'front', chunksOf(Buffer.from('a'), 1));
      await store.blobs.put(sessionId, 'selfie', chunksOf(Buffer.from('b'), 1));
      await store.blobs.put(kept, 'front', chunksOf(Buffer.from('c'), 1));
      expect(await other.blobs.deleteSession(sessionId)).toBe(2);
      expect(await store.blobs.deleteSession(sessionId)).toBe(0);
      expect(await store.blobs.read(sessionId, 'front')).toBeUndefined();
      expect((await readAll(await store.blobs.read(kept, 'front')))?.toString()).toBe('c');
    });

    it('refuses unsafe names', async () => {
      const sessionId = randomUUID();
      await expect(store.blobs.put(sessionId, '../escape', chunksOf(Buffer.from('x'), 1))).rejects.toThrow(
        /unsafe blob name/,
      );
      await expect(store.blobs.read('not-a-session', 'front')).rejects.toThrow(/not a session id/);
    });
  });
});

describe('store URLs in messages', () => {
  it('never shows a password, in the user part or as a parameter', () => {
    expect(redactedUrl('postgres://idv:s3cret@db:5432/idv')).toBe('postgres://idv:***@db:5432/idv');
    expect(redactedUrl('postgres://idv@db/idv?password=s3cret&sslmode=require')).toBe(
      'postgres://idv@db/idv',
    );
  });
});

// What a crash leaves in the directory store, read as the store does: a session file written
// before its claim was decided is not accounted for (the sweep may take it), and a temporary
// file holding a key goes with the key.
describe('directory store after a crash', () => {
  let directory: string;
  let store: IdvStore;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'idv-crashed-'));
    store = await openLocalStore(directory);
  });
  afterAll(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  const claimFile = (sessionId: string, key: string) =>
    JSON.stringify({
      workflowId: 'idv-crashed',
      profileId: randomUUID(),
      resultsAccessKey: key,
      collectionMethod: 'PollResult',
      nextStep: { method: 'None', content: '' },
    });

  it("reads one verification's create attempts without reading every other's of its profile", async () => {
    // A clean-up under load reads its own attempts: reading the profile's every attempt made
    // each return wait on all open verifications. Another's attempt here cannot be read at all.
    const profileId = randomUUID();
    const mine = await store.vault.recordCreateAttempt({ workflowId: 'idv-mine', profileId, startedAtMs: 1 });
    const theirs = await store.vault.recordCreateAttempt({
      workflowId: 'idv-theirs',
      profileId,
      startedAtMs: 2,
    });
    const folder = join(directory, 'vault', 'attempts', profileId);
    await rm(join(folder, `${theirs}.json`));
    await mkdir(join(folder, `${theirs}.json`));
    expect((await store.vault.createAttempts(profileId, 'idv-mine')).map((attempt) => attempt.id)).toEqual([
      mine,
    ]);
  });

  it('does not count a claim whose verification never decided it (killed between the two writes)', async () => {
    const sessionId = randomUUID();
    await mkdir(join(directory, 'vault', 'sessions'), { recursive: true });
    await writeFile(join(directory, 'vault', 'sessions', `${sessionId}.json`), claimFile(sessionId, 'k'));
    expect(await store.vault.accountedFor([sessionId])).toEqual(new Set());
    expect(await store.vault.takeOrphan(sessionId, randomUUID())).toBe(true);
  });

  it('leaves a session the sweep was taking to a later look when killed part way (no mark, no take)', async () => {
    const sessionId = randomUUID();
    const profileId = randomUUID();
    // The orphan's mark cannot be written, as if the process died before it was.
    const marks = join(directory, 'vault', 'orphans', profileId);
    await mkdir(join(directory, 'vault', 'orphans'), { recursive: true });
    await writeFile(marks, 'not a folder');
    await expect(store.vault.takeOrphan(sessionId, profileId)).rejects.toThrow();
    await rm(marks);
    // Not accounted for, so the next look takes it, and the sweep ends and redacts it.
    expect(await store.vault.accountedFor([sessionId])).toEqual(new Set());
    expect(await store.vault.takeOrphan(sessionId, profileId)).toBe(true);
    expect(await store.vault.orphans(profileId)).toEqual([sessionId]);
  });

  it('sweeps an orphan whose take was cut short after its mark, and clears the mark', async () => {
    const sessionId = randomUUID();
    const profileId = randomUUID();
    await mkdir(join(directory, 'vault', 'orphans', profileId), { recursive: true });
    await writeFile(join(directory, 'vault', 'orphans', profileId, sessionId), '{}');
    expect(await store.vault.orphans(profileId)).toEqual([sessionId]);
    // As the sweep does once the orphan is ended and redacted.
    await store.vault.destroy(sessionId);
    await store.vault.orphanSwept(sessionId, profileId);
    expect(await store.vault.orphans(profileId)).toEqual([]);
  });

  /** The start of a reference's first verification, under key `dk-first`. */
  const firstStart = () => ({
    reference: `ref-${randomUUID()}`,
    verificationProfileId: randomUUID(),
    provider: 'idnow',
    startedAt: '2026-01-01T00:00:00.000Z',
  });

  /** A first start under `dk-first`, erased (naming `erasedKey`) and purged. */
  const purgedFirst = async (erasedKey?: string) => {
    const first = firstStart();
    await store.records.reserve({ ...first, dataKeyId: 'dk-first', status: 'started' });
    await store.records.redacted(first.reference, '2026-01-01T00:01:00.000Z', erasedKey);
    expect(await store.records.purge('2026-01-02T00:00:00.000Z')).toContain(first.reference);
    return first;
  };

  it('takes no take-over that landed after its record was purged for a start made anew', async () => {
    const first = await purgedFirst();
    const { reference } = first;
    // A take-over that read the record before the purge and wrote after it.
    const folder = join(directory, 'records', 'restarted', reference);
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, '1.json'),
      JSON.stringify({ dataKeyId: 'dk-stale', startedAt: '2026-01-01T00:00:30.000Z', over: 'dk-first' }),
    );
    const anew = { ...first, dataKeyId: 'dk-anew', startedAt: '2026-01-03T00:00:00.000Z' };
    expect((await store.records.reserve({ ...anew, status: 'started' })).created).toBe(true);
    const record = await store.records.get(reference);
    expect(record).toMatchObject({ dataKeyId: 'dk-anew', startedAt: anew.startedAt });
    expect(record?.supersededKeyIds).toBeUndefined();
  });

  it('takes no ending that landed while its record was purged, and records the new start’s own', async () => {
    const first = await purgedFirst();
    const { reference } = first;
    // An ending that read the record before the purge removed its start, and wrote after the
    // purge removed its facts: left behind.
    const stale = {
      verificationProfileId: first.verificationProfileId,
      provider: first.provider,
      dataKeyId: 'dk-first',
      startedAt: first.startedAt,
      status: 'failed' as const,
      sessionId: randomUUID(),
      endedAt: '2026-01-01T00:00:40.000Z',
      redactionDueAt: '2026-01-01T00:00:50.000Z',
    };
    await mkdir(join(directory, 'records', 'ended'), { recursive: true });
    await writeFile(join(directory, 'records', 'ended', `${reference}.json`), JSON.stringify(stale));
    const anew = { ...first, dataKeyId: 'dk-anew', startedAt: '2026-01-03T00:00:00.000Z' };
    expect((await store.records.reserve({ ...anew, status: 'started' })).created).toBe(true);
    expect(await store.records.get(reference)).toEqual({ ...anew, status: 'started' });
    // The new start never ran: a start after it takes it over (the left ending closes nothing).
    const taker = { dataKeyId: 'dk-taker', startedAt: '2026-01-03T00:01:00.000Z' };
    expect(await store.records.restarted(reference, taker)).toBe(true);
    expect(await store.records.get(reference)).toMatchObject({ status: 'started', ...taker });
    const own = { ...stale, dataKeyId: 'dk-taker', startedAt: taker.startedAt, status: 'succeeded' as const };
    await store.records.ended(reference, { ...own, endedAt: '2026-01-03T00:05:00.000Z' });
    expect(await store.records.get(reference)).toMatchObject({
      status: 'succeeded',
      dataKeyId: 'dk-taker',
      sessionId: own.sessionId,
      supersededKeyIds: ['dk-anew'],
    });
  });

  it('takes no erasure that landed while its record was purged', async () => {
    const first = await purgedFirst('dk-first');
    const { reference } = first;
    // A repeat of the erasure that read the record before the purge removed its start, and wrote
    // after the purge removed its facts: left behind.
    await mkdir(join(directory, 'records', 'redacted'), { recursive: true });
    await writeFile(
      join(directory, 'records', 'redacted', `${reference}.json`),
      JSON.stringify({ redactedAt: '2026-01-01T00:02:00.000Z', dataKeyId: 'dk-first' }),
    );
    const anew = { ...first, dataKeyId: 'dk-anew', startedAt: '2026-01-03T00:00:00.000Z' };
    expect((await store.records.reserve({ ...anew, status: 'started' })).created).toBe(true);
    expect(await store.records.get(reference)).toEqual({ ...anew, status: 'started' });
    await store.records.redacted(reference, '2026-01-03T00:09:00.000Z', 'dk-anew');
    expect(await store.records.get(reference)).toMatchObject({ redactedAt: '2026-01-03T00:09:00.000Z' });
  });

  it('takes no start over whose ending or erasure it cannot read (a later release’s)', async () => {
    for (const fact of ['ended', 'redacted']) {
      const first = firstStart();
      await store.records.reserve({ ...first, dataKeyId: 'dk-first', status: 'started' });
      await mkdir(join(directory, 'records', fact), { recursive: true });
      await writeFile(
        join(directory, 'records', fact, `${first.reference}.json`),
        JSON.stringify({ status: 'paused' }),
      );
      const taker = { dataKeyId: 'dk-taker', startedAt: '2026-01-01T00:01:00.000Z' };
      expect([fact, await store.records.restarted(first.reference, taker)]).toEqual([fact, false]);
    }
  });

  it('destroys a key together with the temporary files a crashed write left holding it', async () => {
    const sessionId = randomUUID();
    const folder = join(directory, 'vault', 'sessions');
    await mkdir(folder, { recursive: true });
    const leftover = join(folder, `${sessionId}.json.${randomUUID()}.tmp`);
    await writeFile(leftover, claimFile(sessionId, 'secret-key'));
    await store.vault.destroy(sessionId);
    expect((await readdir(folder)).filter((name) => name.startsWith(sessionId))).toEqual([
      `${sessionId}.json`,
    ]);
  });
});
