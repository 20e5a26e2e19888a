import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { harnessEnv, harnessValue } from '../harness/env';
import { redactionWorkflowId } from '../../verification/shared/ids';
import { lookAgainArgs } from '../../verification/shared/workflows';
import { type ActivityDeps } from '../../workers/activities';
import { createActivities } from '../../workers/activities';
import { type CreatedSession } from '../../verification/activities/session-activities';
import { type VerificationInput } from '../../verification/domain/verification';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { type ListSessionsResponse } from '../../api/identity/schemas/session';
import { prepareVerificationInput } from '../../verification/client/prepare-input';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { emulatorControl } from '../../emulator/control-client';
import { type SessionRecord } from '../../emulator/state/model';
import { localActivityDeps } from '../harness/activity-deps';
import {
  LAST_LISTING_PAGES_PER_LOOK,
  type OrphanLook,
} from '../../verification/activities/cleanup-activities';
import { CLOCK_SLACK_MS } from '../../verification/activities/create-attempts';
import { FixedKeyring } from '../harness/fixed-keyring';
import { DataKeys } from '../../codec/data-keys';
import { type Keyring } from '../../codec/keyring';
import { openLocalStore } from '../../stores/local/local-store';
import { testProviderRequest } from '../harness/requests';

// A create attempt whose answer reached the vault but not the workflow (the worker died after the
// activity finished, before reporting) left a session: the retry hands that one over (one
// session per verification), marks its own an orphan and says a sweep is needed; closing the
// creation forgets what nothing can come of.
describe('create attempts', () => {
  let emulator: Emulator;
  let identity: IdentityClient;
  let dataDir: string;
  let deps: ActivityDeps;
  const profileId = () => emulator.verificationProfiles[0]?.id ?? '';
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 23 });
    identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-attempts-'));
    deps = await localActivityDeps(dataDir, identity);
  });
  afterAll(async () => {
    await identity.close();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const environment = (workflowId: string) =>
    new MockActivityEnvironment({ workflowExecution: { workflowId, runId: 'run-1' } });

  type LookArgs = Parameters<ReturnType<typeof createActivities>['sweepOrphans']>[0];
  /**
   * One look of the sweep (run `idv-orphans-<name>`) whose ListSessions `list` answers (the
   * service's own without it), with sessions landing up to `horizonMs` after their attempt.
   */
  const sweepLook = (
    name: string,
    list?: IdentityClient['sessions']['list'],
    horizonMs?: number,
  ): ((args: LookArgs) => Promise<OrphanLook>) => {
    const sessions = new Proxy(identity.sessions, {
      get: (target, property, receiver) =>
        property === 'list' && list ? list : (Reflect.get(target, property, receiver) as unknown),
    });
    const activities = createActivities({
      ...deps,
      identity: { ...deps.identity, sessions },
      ...(horizonMs === undefined ? {} : { orphans: { horizonMs } }),
    });
    const sweep = (args: LookArgs) => activities.sweepOrphans(args);
    return (args) =>
      environment(`idv-orphans-${name}`).run<[LookArgs], OrphanLook, typeof sweep>(sweep, args);
  };

  /** How a verification ended, for its record. */
  const ending = (reference: string) => ({
    reference,
    verificationProfileId: profileId(),
    provider: 'trinsic-test-database-lookup',
    startedAt: new Date().toISOString(),
    status: 'cancelled' as const,
    dataKeyId: 'dk-1',
    endedAt: new Date().toISOString(),
  });
  const createIn = async (workflowId: string) => {
    const activities = createActivities(deps);
    const input = await prepareVerificationInput(
      testProviderRequest(workflowId.replace(/^idv-/, ''), profileId()),
      deps.dataKeys,
    );
    const create = (args: VerificationInput) => activities.createSession(args);
    return await environment(workflowId).run<[VerificationInput], CreatedSession, typeof create>(
      create,
      input,
    );
  };

  it('hands the first session over to a retry, marking the retry’s own an orphan', async () => {
    const first = await createIn('idv-lost-answer');
    expect(first.orphansPossible).toBe(false);
    // The first answer is "lost": the activity runs again and the service creates a second session.
    const sessionsBefore = emulator.store.sessions.size;
    const second = await createIn('idv-lost-answer');
    expect(emulator.store.sessions.size).toBe(sessionsBefore + 1);
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.nextStep).toEqual(first.nextStep);
    expect(second.orphansPossible).toBe(true);
    const orphans = await deps.vault.orphans(profileId());
    expect(orphans).toHaveLength(1);
    expect(orphans[0]).not.toBe(first.sessionId);
  });

  it('closes creation: answered attempts are forgotten, and no sweep is needed when all were', async () => {
    const created = await createIn('idv-close');
    const activities = createActivities(deps);
    expect(await deps.vault.createAttempts(profileId(), 'idv-close')).toHaveLength(1);
    const closed = await environment('idv-close').run(
      (args: Parameters<typeof activities.closeCreation>[0]) => activities.closeCreation(args),
      { verificationProfileId: profileId(), keptSessionId: created.sessionId, ending: ending('close') },
    );
    expect(closed).toEqual({ sweepNeeded: false });
    expect(await deps.vault.createAttempts(profileId(), 'idv-close')).toEqual([]);
  });

  it('closes creation of a verification that never learnt its session: that one is an orphan', async () => {
    const created = await createIn('idv-unlearnt');
    const activities = createActivities(deps);
    const closed = await environment('idv-unlearnt').run(
      (args: Parameters<typeof activities.closeCreation>[0]) => activities.closeCreation(args),
      { verificationProfileId: profileId(), ending: ending('unlearnt') },
    );
    expect(closed).toEqual({ sweepNeeded: true });
    expect(await deps.vault.orphans(profileId())).toContain(created.sessionId);
  });

  it('sweeps the orphans claims marked even while the listing of sessions fails', async () => {
    await createIn('idv-marked');
    const marked = await createIn('idv-marked').then(async () => await deps.vault.orphans(profileId()));
    expect(marked.length).toBeGreaterThan(0);
    // An attempt whose answer was lost opens a window the look must list.
    const attemptId = await deps.vault.recordCreateAttempt({
      workflowId: 'idv-lost',
      profileId: profileId(),
      startedAtMs: Date.now() - 60_000,
    });
    await deps.vault.endCreateAttempt(profileId(), attemptId, {
      endedAtMs: Date.now() - 50_000,
      settled: false,
    });
    const control = emulatorControl(emulator.controlUrl);
    await control('PUT', '/faults', { operation: 'ListSessions', errorRate: 1, errorStatus: 503 });
    try {
      const activities = createActivities(deps);
      const sweep = (args: Parameters<typeof activities.sweepOrphans>[0]) => activities.sweepOrphans(args);
      const looked: unknown = await environment('idv-orphans-look')
        .run(sweep, { verificationProfileId: profileId() })
        .catch((error: unknown) => error);
      // The listing's failure still fails the look (Temporal tries it again)...
      expect(looked).toBeInstanceOf(Error);
    } finally {
      await control('DELETE', '/faults');
    }
    // ...but the sessions known by their ids were not held up by it.
    for (const sessionId of marked) expect(emulator.store.sessions.get(sessionId)?.redacted).toBeDefined();
    expect(await deps.vault.orphans(profileId())).toEqual([]);
  });

  it('sweeps a finished orphan whose redaction keeps answering 404 as one the service no longer knows', async () => {
    await createIn('idv-redacted-orphan');
    await createIn('idv-redacted-orphan');
    const [orphan] = await deps.vault.orphans(profileId());
    expect(orphan).toBeDefined();
    const control = emulatorControl(emulator.controlUrl);
    await control('POST', `/sessions/${orphan}/complete`);
    // A service that serves a session it redacted already, answering its redaction 404.
    await control('PUT', '/faults', {
      operation: 'RedactSession',
      errorRate: 1,
      errorStatus: 404,
      sessionId: orphan,
    });
    // The sweep starts a look again at it an hour later (a gateway's 404s may outlast the look).
    const connection = await Connection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    const client = new Client({ connection });
    const taskQueue = `create-attempts-${randomUUID()}`;
    try {
      const activities = createActivities(deps);
      const sweep = (args: Parameters<typeof activities.sweepOrphans>[0]) => activities.sweepOrphans(args);
      const sweeping = new MockActivityEnvironment(
        { workflowExecution: { workflowId: 'idv-orphans-404', runId: 'run-1' }, taskQueue },
        { client },
      );
      const looked = await sweeping.run(sweep, { verificationProfileId: profileId() });
      expect(looked).toMatchObject({ failures: 0, redacted: [orphan] });
      const again = client.workflow.getHandle(redactionWorkflowId(lookAgainArgs(orphan as string, true)));
      expect((await again.describe()).status.name).toBe('RUNNING');
      await again.terminate('done with the test');
    } finally {
      await control('DELETE', '/faults');
      await connection.close();
    }
    expect(await deps.vault.orphans(profileId())).toEqual([]);
  });

  it('creates no session when its data key cannot be read twice in a row (the keyring away)', async () => {
    const keyring = new FixedKeyring();
    let reads = 0;
    // The keyring answers one read, then times out (its query queued behind workflow tasks).
    const flaky: Keyring = {
      current: () => keyring.current(),
      byId: (id) => (++reads > 1 ? Promise.reject(new Error('keyring query timed out')) : keyring.byId(id)),
    };
    const store = await openLocalStore(join(dataDir, 'flaky-keyring'));
    const input = await prepareVerificationInput(
      testProviderRequest('flaky-keyring', profileId()),
      new DataKeys(store.dataKeys, keyring),
    );
    const activities = createActivities({ ...deps, dataKeys: new DataKeys(store.dataKeys, flaky) });
    const before = emulator.store.sessions.size;
    const create = (args: VerificationInput) => activities.createSession(args);
    const error: unknown = await environment('idv-flaky-keyring')
      .run<[VerificationInput], CreatedSession, typeof create>(create, input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // Nothing was created that no one claims: the failure came before the create was sent.
    expect(emulator.store.sessions.size).toBe(before);
    await store.close();
  });

  it('sends no create for a verification whose creation is closed (an attempt that came too late)', async () => {
    await deps.vault.closeCreation('idv-closed');
    const before = emulator.store.sessions.size;
    const error: unknown = await createIn('idv-closed').catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'CreationClosed', nonRetryable: true });
    expect(emulator.store.sessions.size).toBe(before);
    const attempts = await deps.vault.createAttempts(profileId(), 'idv-closed');
    expect(attempts).toEqual([expect.objectContaining({ settled: true, endedAtMs: expect.any(Number) })]);
  });

  it('lists closed windows whole over several looks before forgetting their attempts, finding a session the service listed long after the date it gives it', async () => {
    // A sweep started anew (the one before gave up): its first look lists the whole windows, up
    // to its bound, the attempt kept; the second goes on and finds the session.
    await listedLateBehindMany('listed-late', () => [], {
      after: async (second) => {
        expect(second.lastListing).toBeUndefined();
        // Another's window keeps the sweep looking.
        expect(await deps.vault.createAttempts(profileId(), 'idv-listed-late-open')).toHaveLength(1);
      },
    });
  });

  /**
   * A session dated three hours back behind more sessions of the profile than one look lists, and
   * two windows closed: the first look stops at its bound. `between` changes the service's list
   * before the second look; the second must find the session all the same.
   */
  async function listedLateBehindMany(
    name: string,
    between: (listing: {
      since: SessionRecord[];
      nowMs: number;
      first: OrphanLook;
    }) => Array<{ id: string }> | Promise<Array<{ id: string }>>,
    options: {
      after?: (second: OrphanLook) => void | Promise<void>;
      /** Called before each ListSessions of the first look, with how many it made before. */
      duringFirst?: (listed: number) => void;
      /** What the service answers the second look's ListSessions instead of the list as it is. */
      secondAnswer?: (answer: ListSessionsResponse, page: number) => ListSessionsResponse;
    } = {},
  ): Promise<void> {
    const { after, duringFirst, secondAnswer } = options;
    const HOUR = 3_600_000;
    const nowMs = Date.now();
    const control = emulatorControl(emulator.controlUrl);
    await control('PUT', '/script', { outcome: 'manual' });
    const { sessionId } = await identity.sessions.createDirectProviderSession({
      verificationProfileId: profileId(),
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
    });
    const session = emulator.store.sessions.get(sessionId);
    if (!session) throw new Error('the session is missing');
    session.createdMs = nowMs - 3 * HOUR + 2_000;
    // Dated when its create arrived, three hours ago; listed only now that it was carried out.
    // More sessions of the profile created since than one look lists (a second apart, the newest
    // first in the list), and some before.
    const since = Array.from({ length: LAST_LISTING_PAGES_PER_LOOK * 50 + 200 }, (_, n) => ({
      ...session,
      id: randomUUID(),
      createdMs: n < 100 ? nowMs - 4 * HOUR + n * 1_000 : nowMs - 2 * HOUR + n * 1_000,
    }));
    for (const other of since) emulator.store.sessions.set(other.id, other);
    const added: Array<{ id: string }> = [];
    const attempt = async (workflowId: string, startedAtMs: number) => {
      const id = await deps.vault.recordCreateAttempt({ workflowId, profileId: profileId(), startedAtMs });
      await deps.vault.endCreateAttempt(profileId(), id, { endedAtMs: startedAtMs + 30_000, settled: false });
    };
    // That create's attempt got no answer; its window (an hour's horizon) closed two hours ago,
    // while another's window keeps the sweep looking.
    await attempt(`idv-${name}-late`, nowMs - 3 * HOUR);
    await attempt(`idv-${name}-open`, nowMs - 2 * 60_000);
    let firstLook = true;
    let listed = 0;
    const list: IdentityClient['sessions']['list'] = async (...args) => {
      if (firstLook) duringFirst?.(listed++);
      const answer = await identity.sessions.list(...args);
      return !firstLook && secondAnswer ? secondAnswer(answer, args[1]?.page ?? 1) : answer;
    };
    const look = sweepLook(name, list, HOUR);
    try {
      const first = await look({ verificationProfileId: profileId() });
      firstLook = false;
      expect(first).toMatchObject({ lastListing: { page: LAST_LISTING_PAGES_PER_LOOK + 1 } });
      expect(session.redacted).toBeUndefined();
      expect(await deps.vault.createAttempts(profileId(), `idv-${name}-late`)).toHaveLength(1);
      added.push(...(await between({ since, nowMs: Date.now(), first })));
      // The next look goes on; more created since than one look reads take one more.
      let second = first;
      const redacted: string[] = [];
      for (let looks = 0; looks === 0 || (second.lastListing && looks < 5); looks += 1) {
        second = await look({
          verificationProfileId: profileId(),
          coveredToMs: second.coveredToMs,
          ...(second.lastListing ? { lastListing: second.lastListing } : {}),
        });
        redacted.push(...second.redacted);
      }
      // Swept: redacted (the service had expired it meanwhile, three hours after the date it gave it).
      expect(redacted).toContain(sessionId);
      expect(session.redacted?.by).toBe('request');
      expect(await deps.vault.createAttempts(profileId(), `idv-${name}-late`)).toEqual([]);
      await after?.(second);
    } finally {
      for (const other of [...since, ...added]) emulator.store.sessions.delete(other.id);
    }
  }

  it('goes on where a listing stopped though many sessions were created since, over the looks it takes', async () => {
    await listedLateBehindMany('busy', ({ since, nowMs }) => {
      // Each pushes every older session one place later in the list. Created within the minute
      // every look reads whole, they leave each look a fifth of its pages to go on with.
      const created = Array.from({ length: (LAST_LISTING_PAGES_PER_LOOK - 20) * 50 }, (_, n) => ({
        ...(since[0] as SessionRecord),
        id: randomUUID(),
        createdMs: nowMs + 2_000 + n,
      }));
      for (const other of created) emulator.store.sessions.set(other.id, other);
      return created;
    });
  });

  it('goes on where a listing stopped though the service stopped listing sessions before that place', async () => {
    await listedLateBehindMany('dropped', ({ since }) => {
      // The newest 300 the first look read: every later session moves six pages up.
      for (const gone of since.slice(-300)) emulator.store.sessions.delete(gone.id);
      return [];
    });
  });

  it('goes on where a listing stopped though many sessions were created while it was read', async () => {
    const created: SessionRecord[] = [];
    await listedLateBehindMany('busy-during', () => created, {
      duringFirst: (listed) => {
        if (listed !== 50) return;
        // Half way through the first look: every later page of it is numbered past them.
        const template = [...emulator.store.sessions.values()].find(
          (session) => session.profileId === profileId(),
        ) as SessionRecord;
        const nowMs = Date.now();
        for (let n = 0; n < 3_000; n += 1) {
          const session = { ...template, id: randomUUID(), createdMs: nowMs + 2_000 + n };
          created.push(session);
          emulator.store.sessions.set(session.id, session);
        }
      },
    });
  });

  it('reads whole what was created since the last look though its newest sessions are listed undated', async () => {
    const created: SessionRecord[] = [];
    await listedLateBehindMany(
      'undated-since',
      ({ since, first }) => {
        // 120 sessions since the last look, dated in what this look reads whole, in the window
        // of an attempt still open: orphans, each to be swept.
        const fromMs = (first.lastListing?.freshFromMs ?? Number.NaN) + 1_000;
        for (let n = 0; n < 120; n += 1) {
          const session = { ...(since[0] as SessionRecord), id: randomUUID(), createdMs: fromMs + n * 100 };
          created.push(session);
          emulator.store.sessions.set(session.id, session);
        }
        return created;
      },
      {
        // The service dates none of the first page's (sessions being created, say).
        secondAnswer: (answer, page) =>
          page === 1
            ? { ...answer, sessions: answer.sessions.map(({ created: _created, ...session }) => session) }
            : answer,
        after: (second) => {
          // The 70 dated ones, on the pages after the first.
          const dated = created.slice(0, 70).map((session) => session.id);
          expect([...second.cancelled, ...second.redacted]).toEqual(expect.arrayContaining(dated));
        },
      },
    );
  });

  it('stops at its bound a listing whose pages give no creation dates', async () => {
    // A service whose every page has more after it and dates none of its sessions: no page shows
    // where the listing stands, so each counts toward the look's bound.
    const nowMs = Date.now();
    const id = await deps.vault.recordCreateAttempt({
      workflowId: 'idv-undated',
      profileId: profileId(),
      startedAtMs: nowMs - 60_000,
    });
    await deps.vault.endCreateAttempt(profileId(), id, { endedAtMs: nowMs - 30_000, settled: false });
    let listed = 0;
    const list: IdentityClient['sessions']['list'] = () => {
      listed += 1;
      // Past this, the look would never have stopped.
      if (listed > 10 * LAST_LISTING_PAGES_PER_LOOK) throw new Error('the listing did not stop');
      const sessions = Array.from({ length: 50 }, () => ({ id: randomUUID(), state: 'Pending' }));
      return Promise.resolve({ sessions, total: 1_000_000, more: true });
    };
    const looked = await sweepLook('undated', list)({ verificationProfileId: profileId() });
    expect(looked).toMatchObject({ open: true, lastListing: { page: LAST_LISTING_PAGES_PER_LOOK + 1 } });
    // No place to go on from (a date that is none would reach the next look as null).
    expect(looked.lastListing).not.toHaveProperty('stoppedAtMs');
    // The pages of the bound, and the first page read again for the newest.
    expect(listed).toBe(LAST_LISTING_PAGES_PER_LOOK + 1);
    // The attempt stays for the listing to go on.
    expect(await deps.vault.createAttempts(profileId(), 'idv-undated')).toHaveLength(1);
    await deps.vault.forgetCreateAttempts(profileId(), [id]);
  });

  it('keeps for the next listing the attempt whose window closed while a listing went on', async () => {
    const HOUR = 3_600_000;
    await listedLateBehindMany(
      'closed-meanwhile',
      async ({ first }) => {
        // Its window (an hour's horizon past its end, and the clocks' slack) closed just after
        // the listing began: sessions of it the listing passed already could be missed.
        const endedAtMs = (first.lastListing?.beganAtMs ?? Number.NaN) + 1 - HOUR - CLOCK_SLACK_MS;
        const id = await deps.vault.recordCreateAttempt({
          workflowId: 'idv-closed-meanwhile-mid',
          profileId: profileId(),
          startedAtMs: endedAtMs - 30_000,
        });
        await deps.vault.endCreateAttempt(profileId(), id, { endedAtMs, settled: false });
        return [];
      },
      {
        after: async (second) => {
          expect(await deps.vault.createAttempts(profileId(), 'idv-closed-meanwhile-mid')).toHaveLength(1);
          expect(second.open).toBe(true);
        },
      },
    );
  });

  /**
   * An attempt whose answer was lost three hours ago (its window, at an hour's horizon, closed
   * long since), the orphan it left, and as many sessions of the profile newer than the orphan
   * (outside every window) as put it first on its page. `answer` is told of each ListSessions
   * answer (and may change it or the service's list); one look must sweep the orphan.
   */
  async function sweptThoughTheListingChanges(
    name: string,
    answer: (listing: {
      answer: ListSessionsResponse;
      page: number;
      orphan: SessionRecord;
      orphanPage: number;
      newer: SessionRecord[];
    }) => ListSessionsResponse,
    options: { covered?: boolean; placeOnPage?: number } = {},
  ): Promise<OrphanLook> {
    const HOUR = 3_600_000;
    const nowMs = Date.now();
    const startedAtMs = nowMs - 3 * HOUR;
    const attemptId = await deps.vault.recordCreateAttempt({
      workflowId: `idv-${name}`,
      profileId: profileId(),
      startedAtMs,
    });
    await deps.vault.endCreateAttempt(profileId(), attemptId, {
      endedAtMs: startedAtMs + 30_000,
      settled: false,
    });
    await emulatorControl(emulator.controlUrl)('PUT', '/script', { outcome: 'manual' });
    const { sessionId } = await identity.sessions.createDirectProviderSession({
      verificationProfileId: profileId(),
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
    });
    const orphan = emulator.store.sessions.get(sessionId) as SessionRecord;
    orphan.createdMs = startedAtMs + 2_000;
    const listedBefore = [...emulator.store.sessions.values()].filter(
      (session) => session.profileId === profileId() && session.createdMs > orphan.createdMs,
    ).length;
    const placeOnPage = options.placeOnPage ?? 0;
    const newer: SessionRecord[] = Array.from(
      { length: 100 + ((50 - (listedBefore % 50)) % 50) + placeOnPage },
      (_, n) => ({
        ...orphan,
        id: randomUUID(),
        createdMs: nowMs - HOUR + n * 1_000,
      }),
    );
    // And one older than every window below it, so that an undated orphan has a dated neighbour
    // on either side.
    newer.push({ ...orphan, id: randomUUID(), createdMs: startedAtMs - HOUR });
    for (const session of newer) emulator.store.sessions.set(session.id, session);
    const orphanPage = Math.floor((listedBefore + newer.length - 1) / 50) + 1;
    const list: IdentityClient['sessions']['list'] = async (...args) =>
      answer({
        answer: await identity.sessions.list(...args),
        page: args[1]?.page ?? 1,
        orphan,
        orphanPage,
        newer,
      });
    try {
      const looked = await sweepLook(
        name,
        list,
        HOUR,
      )({
        verificationProfileId: profileId(),
        ...(options.covered ? { coveredToMs: startedAtMs - HOUR } : {}),
      });
      expect(looked.redacted).toContain(sessionId);
      expect(orphan.redacted?.by).toBe('request');
      return looked;
    } finally {
      for (const session of newer) emulator.store.sessions.delete(session.id);
      await deps.vault.forgetCreateAttempts(profileId(), [attemptId]);
    }
  }

  it('sweeps an orphan that moved up a page while the look read the pages before it', async () => {
    await sweptThoughTheListingChanges('moved-up', ({ answer, page, orphanPage, newer }) => {
      // The service stops listing a session the look has read: the orphan moves to the end of
      // the page read just before its own.
      if (page === orphanPage - 1) emulator.store.sessions.delete((newer[0] as SessionRecord).id);
      return answer;
    });
  });

  it('sweeps an orphan the service lists without its creation date, between dated ones', async () => {
    await sweptThoughTheListingChanges(
      'undated-orphan',
      ({ answer, orphan }) => ({
        ...answer,
        sessions: answer.sessions.map(({ created, ...session }) =>
          session.id === orphan.id ? session : { ...session, created },
        ),
      }),
      { placeOnPage: 1 },
    );
  });

  it('bounds the pages a look reads whole after the listing failed long, going on at the next look', async () => {
    const HOUR = 3_600_000;
    const nowMs = Date.now();
    const attempts: string[] = [];
    // Answers lost an hour ago and a minute ago, while the listing failed: everything the
    // profile created since the first is to be read again, more than one look reads.
    for (const startedAtMs of [nowMs - HOUR, nowMs - 60_000]) {
      const id = await deps.vault.recordCreateAttempt({
        workflowId: 'idv-long-outage',
        profileId: profileId(),
        startedAtMs,
      });
      await deps.vault.endCreateAttempt(profileId(), id, { endedAtMs: startedAtMs + 30_000, settled: false });
      attempts.push(id);
    }
    await emulatorControl(emulator.controlUrl)('PUT', '/script', { outcome: 'manual' });
    const { sessionId } = await identity.sessions.createDirectProviderSession({
      verificationProfileId: profileId(),
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
    });
    const template = emulator.store.sessions.get(sessionId) as SessionRecord;
    template.createdMs = nowMs - 56 * 60_000;
    // Outside both windows: none of them to sweep.
    const created = Array.from({ length: (LAST_LISTING_PAGES_PER_LOOK + 20) * 50 }, (_, n) => ({
      ...template,
      id: randomUUID(),
      createdMs: nowMs - 55 * 60_000 + n * 500,
    }));
    for (const session of created) emulator.store.sessions.set(session.id, session);
    let listed = 0;
    const list: IdentityClient['sessions']['list'] = (...args) => {
      listed += 1;
      return identity.sessions.list(...args);
    };
    const look = sweepLook('long-outage', list, 60_000);
    try {
      const first = await look({ verificationProfileId: profileId(), coveredToMs: nowMs - HOUR });
      // The pages of the bound, and the first page read again for the newest.
      expect(listed).toBeLessThanOrEqual(LAST_LISTING_PAGES_PER_LOOK + 1);
      expect(first).toMatchObject({ open: true, coveredToMs: nowMs - HOUR, lastListing: expect.any(Object) });
      const second = await look({
        verificationProfileId: profileId(),
        coveredToMs: first.coveredToMs,
        ...(first.lastListing ? { lastListing: first.lastListing } : {}),
      });
      expect(second.lastListing).toBeUndefined();
      expect(second.coveredToMs).toBeGreaterThan(nowMs - 5 * 60_000);
    } finally {
      for (const session of created) emulator.store.sessions.delete(session.id);
      await deps.vault.forgetCreateAttempts(profileId(), attempts);
    }
  });

  /** A profile of its own (no other test's sessions in its listing), its sweep's activities listing through `list`. */
  const ownProfile = (list?: IdentityClient['sessions']['list']) => {
    const profile = emulator.store.addProfile('env-1', 30 * 86_400_000, 7_200_000);
    const look = () => sweepLook(profile.id, list, 3_600_000)({ verificationProfileId: profile.id });
    /** Sessions of the profile, as the service lists them, created at these times. */
    const created = async (times: number[]) => {
      await emulatorControl(emulator.controlUrl)('PUT', '/script', { outcome: 'manual' });
      const { sessionId } = await identity.sessions.createDirectProviderSession({
        verificationProfileId: profile.id,
        provider: 'yoti',
        capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
      });
      const template = emulator.store.sessions.get(sessionId) as SessionRecord;
      emulator.store.sessions.delete(sessionId);
      return times.map((createdMs) => {
        const session = { ...template, id: randomUUID(), createdMs };
        emulator.store.sessions.set(session.id, session);
        return session;
      });
    };
    return { profileId: profile.id, look, created };
  };

  it('takes no session listed undated at the head of a page, whose create may still be under way', async () => {
    const nowMs = Date.now();
    const startedAtMs = nowMs - 60_000;
    let shifted = false;
    let insert: () => Promise<unknown> = () => Promise.resolve();
    let undatedId = '';
    const { profileId, look, created } = ownProfile(async (...args) => {
      // Two sessions created between the reads: the first page's last two begin the second.
      if ((args[1]?.page ?? 1) === 2 && !shifted) {
        shifted = true;
        await insert();
      }
      const answer = await identity.sessions.list(...args);
      return {
        ...answer,
        sessions: answer.sessions.map(({ created: date, ...session }) =>
          session.id === undatedId ? session : { ...session, created: date },
        ),
      };
    });
    // A create under way since a minute ago (its session may be claimed any time now), and one
    // whose answer was lost before it, whose window covers it.
    const underWay = await deps.vault.recordCreateAttempt({
      workflowId: 'idv-under-way',
      profileId,
      startedAtMs,
    });
    const lost = await deps.vault.recordCreateAttempt({
      workflowId: 'idv-lost-before',
      profileId,
      startedAtMs: startedAtMs - 60_000,
    });
    await deps.vault.endCreateAttempt(profileId, lost, { endedAtMs: startedAtMs - 50_000, settled: false });
    try {
      await created(Array.from({ length: 48 }, (_, n) => nowMs - 5_000 - n));
      // The create under way's session, listed undated, then one of the lost create's window.
      const [underWaySession] = await created([startedAtMs + 2_000]);
      undatedId = (underWaySession as SessionRecord).id;
      await created([startedAtMs - 30_000]);
      // And older ones, before every window, on the second page.
      await created(Array.from({ length: 5 }, (_, n) => startedAtMs - 200_000 - n));
      insert = () => created([nowMs - 1_000, nowMs - 1_001]);
      const looked = await look();
      expect(shifted).toBe(true);
      expect([...looked.cancelled, ...looked.redacted]).not.toContain(undatedId);
      expect(await deps.vault.accountedFor([undatedId])).toEqual(new Set());
      expect(emulator.store.sessions.get(undatedId)?.redacted).toBeUndefined();
    } finally {
      await deps.vault.forgetCreateAttempts(profileId, [underWay, lost]);
    }
  });

  it('reads no page again while the listing holds still, however wide the windows', async () => {
    const nowMs = Date.now();
    const pages: number[] = [];
    const { profileId, look, created } = ownProfile((...args) => {
      pages.push(args[1]?.page ?? 1);
      return identity.sessions.list(...args);
    });
    // A lost answer an hour ago: its window spans every page listed.
    const lost = await deps.vault.recordCreateAttempt({
      workflowId: 'idv-wide-window',
      profileId,
      startedAtMs: nowMs - 55 * 60_000,
    });
    await deps.vault.endCreateAttempt(profileId, lost, { endedAtMs: nowMs - 54 * 60_000, settled: false });
    try {
      // Every one of them kept by a verification: accounted for, none to sweep.
      const sessions = await created(Array.from({ length: 160 }, (_, n) => nowMs - 50 * 60_000 + n * 1_000));
      for (const [n, session] of sessions.entries())
        await deps.vault.claim(session.id, {
          workflowId: `idv-wide-${n}-${profileId}`,
          profileId,
          resultsAccessKey: 'key',
          dataKeyId: 'dk-1',
          collectionMethod: 'PollResult',
          nextStep: { method: 'LaunchBrowser', content: 'https://idv.example/launch', refresh: null },
        });
      await look();
      expect(pages).toEqual([1, 2, 3, 4]);
    } finally {
      await deps.vault.forgetCreateAttempts(profileId, [lost]);
    }
  });

  /**
   * A create under way since about a minute ago, its window covering up to `coverToMs` (a time
   * 500 ms into a second), and a create whose answer was lost before it, whose window covers
   * the minute before.
   */
  const underWayAndLost = async (profileId: string) => {
    const secondMs = Math.floor((Date.now() - 60_000) / 1_000) * 1_000;
    const coverToMs = secondMs + 500;
    const underWay = await deps.vault.recordCreateAttempt({
      workflowId: 'idv-under-way',
      profileId,
      startedAtMs: coverToMs + CLOCK_SLACK_MS,
    });
    const lost = await deps.vault.recordCreateAttempt({
      workflowId: 'idv-lost-before',
      profileId,
      startedAtMs: secondMs - 60_000,
    });
    await deps.vault.endCreateAttempt(profileId, lost, { endedAtMs: secondMs - 50_000, settled: false });
    return { secondMs, coverToMs, attempts: [underWay, lost] };
  };

  it('takes no session dated in the second that ends after what the look covers', async () => {
    const { profileId, look, created } = ownProfile();
    const { secondMs, attempts } = await underWayAndLost(profileId);
    try {
      // Created 400 ms after what the look covers (a service's clock a little behind), dated the
      // whole second before it.
      const [late] = await created([secondMs + 900]);
      const looked = await look();
      expect([...looked.cancelled, ...looked.redacted]).not.toContain((late as SessionRecord).id);
      expect(await deps.vault.accountedFor([(late as SessionRecord).id])).toEqual(new Set());
    } finally {
      await deps.vault.forgetCreateAttempts(profileId, attempts);
    }
  });

  it('takes no session listed undated below every dated one (a service listing them apart)', async () => {
    let undatedId = '';
    const { profileId, look, created } = ownProfile(async (...args) => {
      const answer = await identity.sessions.list(...args);
      const undated = answer.sessions.filter((session) => session.id === undatedId);
      // Listed last, without a date, whatever its date.
      return {
        ...answer,
        sessions: [
          ...answer.sessions.filter((session) => session.id !== undatedId),
          ...undated.map(({ created: _created, ...session }) => session),
        ],
      };
    });
    const { secondMs, attempts } = await underWayAndLost(profileId);
    try {
      await created([secondMs - 40_000, secondMs - 41_000]);
      // The create under way's session.
      const [underWaySession] = await created([secondMs + 12_000]);
      undatedId = (underWaySession as SessionRecord).id;
      const looked = await look();
      expect([...looked.cancelled, ...looked.redacted]).not.toContain(undatedId);
      expect(await deps.vault.accountedFor([undatedId])).toEqual(new Set());
    } finally {
      await deps.vault.forgetCreateAttempts(profileId, attempts);
    }
  });
});
