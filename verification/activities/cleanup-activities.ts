import { setTimeout as delay } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { isKeyId } from '../../stores/data-key-store';
import { RecordReferenceError } from '../../stores/verification-records';
import { NotFoundError } from '../../api/http/errors';
import { type VerificationDeps } from './deps';
import { destroyRecordKeys, recordErasure } from '../client/records';
import { redactionWorkflowId, verificationWorkflowId } from '../shared/ids';
import { redactionMetadata } from '../shared/metadata';
import {
  type LastListingCursor,
  lookAgainArgs,
  RECHECK_AFTER_MS,
  type RedactionArgs,
  type SessionRedactionWorkflow,
  verificationWorkflowTypes,
} from '../shared/workflows';
import { type CreationToClose, type EndingToRecord } from '../shared/messages';
import { type ListSessionsResponse } from '../../api/identity/schemas/session';
import { cancelUnlessDone, RedactionNotAppliedError, stillServed } from './end-session';
import { classified } from './failures';
import { stateOf } from './wire-views';
import { answered, inWindows, mayHaveOrphans, planSweep, RELOOK_MS } from './create-attempts';
import { resolveOrphanSettings, type OrphanSchedule, orphanSchedule } from './orphan-settings';

/** What one look of the profile's orphan sweep did and found. */
export interface OrphanLook {
  /** Live orphans cancelled at the service. */
  cancelled: string[];
  /** Orphans redacted at the service (their keys destroyed). */
  redacted: string[];
  /** Sessions created up to this time were judged; the next look starts a little before it. */
  coveredToMs: number;
  /** A listing this look could not finish (a sweep's first, or closed windows'): the next one goes on from there. */
  lastListing?: LastListingCursor;
  /** A later look is needed (a window still open, an attempt under way, or an orphan not done). */
  open: boolean;
  /**
   * Orphans the service would not end or redact this time (they stay marked and are tried at
   * every look), with the first reason: the sweep gives up visibly when this lasts.
   */
  failures: number;
  failure?: string;
}

/** How a verification's creation closed. */
export interface ClosedCreation {
  /** An orphan may exist (an attempt not settled by an answer, or a session it does not keep): sweep the profile. */
  sweepNeeded: boolean;
}

/**
 * How long after a RedactSession answered 404 for a finished session GetSession still serves it
 * is asked again: a gateway's or a replica's passing 404 is past by then. A 404 to each counts as
 * the service no longer knowing the session.
 */
const REDACTION_404_REASKS_MS = [1_000, 2_000];

/**
 * The pages (50 sessions each) one look reads at most past what it reads whole (the sessions
 * created since the last look): a sweep's first listing, or a last listing of closed windows, of
 * a profile with many sessions is listed over several looks, each well inside its attempt.
 */
export const LAST_LISTING_PAGES_PER_LOOK = 100;

/** The sessions of one page of ListSessions the sweep asks for (the interface's most). */
const LISTING_PAGE_SIZE = 50;

/** How often a look heartbeats, whatever it waits on (a slow page, a budget turn). */
const LOOK_HEARTBEAT_EVERY_MS = 1_000;

/** Where a listing over several looks stopped (see `LastListingCursor`). */
type ListingStop = Pick<LastListingCursor, 'page' | 'stoppedAtMs' | 'newestMs'>;

/** Redaction and orphan clean-up. */
export function cleanupActivities(deps: VerificationDeps) {
  const signal = () => Context.current().cancellationSignal;
  const orphanSettings = resolveOrphanSettings(deps.orphans);
  /**
   * RedactSession; false when the service no longer knows the session (GetSession says so too:
   * see `stillServed`). A 404 for a session GetSession serves running is retried (it fails). One
   * for a session it serves finished is asked again ({@link REDACTION_404_REASKS_MS}), and a 404
   * each time counts as not known: a service serving a session it redacted already (a first
   * answer lost, its own redaction period), not a week of tries and a give-up.
   */
  const redactIfKnown = async (sessionId: string): Promise<boolean> => {
    const redact = async () => {
      try {
        await deps.identity.sessions.redact(sessionId, { signal: signal() });
        return true;
      } catch (error) {
        if (error instanceof NotFoundError) return false;
        throw error;
      }
    };
    if (await redact()) return true;
    const served = await stillServed(deps.identity.sessions, sessionId, { signal: signal() });
    if (!served) return false;
    if (stateOf(served).done) {
      for (const waitMs of REDACTION_404_REASKS_MS) {
        await delay(waitMs, undefined, { signal: signal() });
        if (await redact()) return true;
      }
      return false;
    }
    throw new RedactionNotAppliedError(
      'RedactSession answered 404 while GetSession still serves the session running: the redaction is not carried out',
    );
  };
  /** Ends the session unless it is done: `cancelled` when it was live and is cancelled now; `gone` when the service no longer knows it. */
  const endIfLive = async (sessionId: string): Promise<'cancelled' | 'done' | 'gone'> => {
    try {
      const state = await cancelUnlessDone(deps.identity.sessions, sessionId, { signal: signal() });
      return state.status === 'cancelled' ? 'cancelled' : 'done';
    } catch (error) {
      if (error instanceof NotFoundError) return 'gone';
      throw error;
    }
  };
  /** Closes a verification's creation and records its ending, when given; answers the sessions marked orphans. */
  const closeAndRecord = async (close: {
    workflowId: string;
    keptSessionId?: string;
    ending?: EndingToRecord;
  }): Promise<string[]> => {
    const marked = await deps.vault.closeCreation(close.workflowId, close.keptSessionId);
    if (close.ending) {
      const { reference, ...ending } = close.ending;
      await deps.records.ended(reference, ending);
    }
    return marked;
  };
  /**
   * Ends an orphan if live and redacts it, whatever the ending does; its mark goes once both are
   * done. One the service said it does not know gets a look again later, as a redaction's does.
   */
  const sweepOne = async (
    sessionId: string,
    profileId: string,
    result: OrphanLook,
    done: boolean,
  ): Promise<void> => {
    let failure: unknown;
    // Found gone by the cancel (its 404s confirmed apart): no redaction to ask now.
    let gone = false;
    try {
      const ended = done ? 'done' : await endIfLive(sessionId);
      if (ended === 'cancelled') result.cancelled.push(sessionId);
      gone = ended === 'gone';
    } catch (error) {
      if (signal().aborted) throw error;
      failure = error;
    }
    try {
      const redacted = gone ? false : await redactIfKnown(sessionId);
      if (!redacted) await startRedactionRun(lookAgainArgs(sessionId, true), RECHECK_AFTER_MS);
      await deps.vault.destroy(sessionId);
      result.redacted.push(sessionId);
    } catch (error) {
      if (signal().aborted) throw error;
      failure ??= error;
    }
    if (failure === undefined) await deps.vault.orphanSwept(sessionId, profileId);
    else {
      result.failures += 1;
      result.failure ??= failure instanceof Error ? failure.message : 'the service refused';
    }
  };
  /** Starts a redaction run `delayMs` from now (a Temporal start delay); one started already stays. */
  const startRedactionRun = async (args: RedactionArgs, delayMs: number): Promise<void> => {
    const { client, info } = Context.current();
    await client.workflow.start<SessionRedactionWorkflow>(verificationWorkflowTypes.redaction, {
      workflowId: redactionWorkflowId(args),
      taskQueue: info.taskQueue,
      args: [args],
      ...redactionMetadata(args, new Date(Date.now() + delayMs).toISOString()),
      startDelay: delayMs,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  };
  const look = async (args: {
    verificationProfileId: string;
    coveredToMs?: number;
    lastListing?: LastListingCursor;
    toClose?: CreationToClose[];
  }): Promise<OrphanLook> => {
    const { verificationProfileId: profileId } = args;
    const result: OrphanLook = {
      cancelled: [],
      redacted: [],
      coveredToMs: args.coveredToMs ?? 0,
      open: false,
      failures: 0,
    };
    for (const close of args.toClose ?? []) await closeAndRecord(close);
    const nowMs = Date.now();
    const plan = planSweep(await deps.vault.createAttempts(profileId), nowMs, orphanSettings.horizonMs);
    // Orphans the listing showed finished: nothing to end, only to redact.
    const knownDone = new Set<string>();
    // From a minute before what the last look covered (a sweep's first look: the whole windows).
    const covered = args.coveredToMs !== undefined && args.coveredToMs > 0;
    const sinceMs = Math.max(
      plan.windows[0]?.fromMs ?? Number.POSITIVE_INFINITY,
      covered ? (args.coveredToMs as number) - RELOOK_MS : Number.NEGATIVE_INFINITY,
    );
    // And the whole of the closed windows, before their attempts are forgotten (a session the
    // service listed late).
    const last = plan.lastListing;
    const fromMs = Math.min(last?.fromMs ?? Number.POSITIVE_INFINITY, sinceMs);
    // A listing an earlier look began goes on while it reaches as far back as this look needs:
    // what was created since the last look is read whole, then the listing goes on where it
    // stopped, a little back (a session the service stopped listing moves the later ones up).
    // One that needs to reach further starts again from the first page. The pages past what is
    // read whole are bounded for each look; while a listing goes on, the looks before it read
    // whole everything since what they covered.
    const cursor = args.lastListing;
    const going = cursor !== undefined && fromMs >= cursor.fromMs ? cursor : undefined;
    const reachMs = going ? going.fromMs : fromMs;
    const freshFromMs = cursor ? cursor.freshFromMs : covered ? sinceMs : Number.POSITIVE_INFINITY;
    const beganAtMs = going ? going.beganAtMs : plan.coverToMs;
    let stoppedAt: ListingStop | undefined;
    // A listing that fails (for good: a refusal of this profile's listing) holds up none of the
    // orphans known by their ids; the look fails after them, and Temporal tries it again.
    let listingFailure: { error: unknown } | undefined;
    if (plan.windows.length > 0 && reachMs <= plan.coverToMs) {
      try {
        stoppedAt = await takeListed();
      } catch (error) {
        if (signal().aborted) throw error;
        listingFailure = { error };
      }
    }
    // Taken just now, marked by claims, or left by an earlier look: each by its id.
    for (const sessionId of await deps.vault.orphans(profileId))
      await sweepOne(sessionId, profileId, result, knownDone.has(sessionId));
    if (listingFailure) throw listingFailure.error;
    // The closed windows' attempts go once their listing is done, those closed since it began
    // at the next one.
    const closed = new Set((last?.attempts ?? []).map((attempt) => attempt.id));
    const listed = new Set(
      stoppedAt === undefined
        ? (last?.attempts ?? [])
            .filter((attempt) => attempt.closedAtMs <= beganAtMs)
            .map((attempt) => attempt.id)
        : [],
    );
    await deps.vault.forgetCreateAttempts(
      profileId,
      plan.done.filter((id) => !closed.has(id) || listed.has(id)),
    );
    if (stoppedAt === undefined) result.coveredToMs = Math.max(plan.coverToMs, result.coveredToMs);
    // While it goes on, what the looks covered stays, and so does the listing's reach.
    else
      result.lastListing = {
        fromMs: reachMs,
        ...stoppedAt,
        freshFromMs: plan.coverToMs - RELOOK_MS,
        beganAtMs,
      };
    result.open = plan.open || stoppedAt !== undefined || closed.size > listed.size || result.failures > 0;
    return result;

    /**
     * Takes for the sweep every listed session of the profile in the plan's windows that nothing
     * accounts for. Resolves to where the listing stopped, at its bound for one look (every page
     * read counts, so a look after the listing failed long goes on over several); undefined once
     * everything was listed.
     */
    async function takeListed(): Promise<ListingStop | undefined> {
      let pagesRead = 0;
      // Sessions listed newer than the newest the listing going on had seen: each put where it
      // stopped one place later.
      let pushed = 0;
      let newestMs: number | undefined;
      let resumed = going === undefined;
      // Set while the page read must begin before where the listing going on stopped; one that
      // begins after it (sessions no longer listed moved the later ones up) is followed by the
      // page before it, so that none between is passed.
      let mustReach: number | undefined;
      // The oldest date of the last page that gave any.
      let oldestDated: number | undefined;
      const listPage = (page: number) =>
        deps.identity.sessions.list(
          profileId,
          { orderBy: 'Created', orderDirection: 'Descending', pageSize: LISTING_PAGE_SIZE, page },
          { signal: signal() },
        );
      const createdMs = (session: { created?: number | null }) => (session.created ?? Number.NaN) * 1000;
      /** The creation dates a page gives (some may give none). */
      const datesOf = (sessions: ReadonlyArray<{ created?: number | null }>) =>
        sessions.map(createdMs).filter((at) => !Number.isNaN(at));
      /**
       * Whether sessions created between the two dates could lie in a window this look judges.
       * A date is a whole second: a session dated `toMs` was created up to 999 ms later.
       */
      const meetsWindows = (fromMs: number, toMs: number) =>
        inWindows(plan.windows, Math.max(fromMs, reachMs), Math.min(toMs + 999, plan.coverToMs));
      /**
       * Takes a page's sessions that may lie in the windows, none created after what this look
       * covers (to the end of its dated second). One listed undated was created between its
       * dated neighbours on the page: taken when those dates meet a window and the newer one is
       * within what this look covers. One without a dated session on either side of it on its
       * page is not: at a page's head, what the page before ended with may have moved below it
       * since; at its end (or anywhere, if the service lists undated sessions apart from the
       * dated ones), nothing bounds it.
       */
      const takePage = async (sessions: ListSessionsResponse['sessions']) => {
        const dates = sessions.map(createdMs);
        const dated = (at: number | undefined) => at !== undefined && !Number.isNaN(at);
        const candidates = sessions.filter((_, n) => {
          const toMs = dated(dates[n])
            ? (dates[n] as number)
            : (dates.slice(0, n).findLast(dated) ?? Number.POSITIVE_INFINITY);
          const fromMs = dated(dates[n])
            ? (dates[n] as number)
            : (dates.slice(n + 1).find(dated) ?? Number.POSITIVE_INFINITY);
          return toMs + 999 <= plan.coverToMs && meetsWindows(fromMs, toMs);
        });
        const accounted = await deps.vault.accountedFor(
          candidates.map((session) => session.id.toLowerCase()),
        );
        for (const session of candidates) {
          const id = session.id.toLowerCase();
          if (accounted.has(id) || !(await deps.vault.takeOrphan(id, profileId))) continue;
          if (stateOf(session).done) knownDone.add(id);
        }
      };
      // The page read last, a date its last session was created at or before, and the count of
      // sessions the service gave with it.
      let lastRead: { page: number; lastMs: number; total: number } | undefined;
      for (let page = 1; ;) {
        const answer = await listPage(page);
        pagesRead += 1;
        // The page just before this one, when it was the one read last.
        const previous = lastRead?.page === page - 1 ? lastRead : undefined;
        const dates = datesOf(answer.sessions);
        const newest = dates.reduce((most, at) => Math.max(most, at), Number.NEGATIVE_INFINITY);
        const oldest = dates.reduce((least, at) => Math.min(least, at), Number.POSITIVE_INFINITY);
        // Sessions the service stopped listing on the pages read before move the later ones up:
        // the first of this page may have moved onto the page before, read already. When the
        // service counts fewer sessions than with that page and a window lies between the two,
        // that page is read again at once (up to a page of sessions dropped meanwhile; at most
        // once a page read, so outside the bound). Between two pages that date nothing it is
        // not: what moved there comes undated among undated ones, and is judged by none.
        const lastBeforeMs = previous?.lastMs ?? Number.POSITIVE_INFINITY;
        const dating = dates.length > 0 || Number.isFinite(lastBeforeMs);
        const again =
          previous && answer.total < previous.total && dating && meetsWindows(newest, lastBeforeMs)
            ? await listPage(page - 1)
            : undefined;
        await takePage(answer.sessions);
        if (again) await takePage(again.sessions);
        lastRead = { page, lastMs: dates.length > 0 ? oldest : lastBeforeMs, total: answer.total };
        if (page === 1 && dates.length > 0) newestMs = newest;
        const seenNewest = going?.newestMs;
        if (seenNewest !== undefined) pushed += dates.filter((at) => at > seenNewest).length;
        let next = page + 1;
        if (mustReach !== undefined && page > 1 && !(newest > mustReach)) next = page - 1;
        else {
          mustReach = undefined;
          if (!answer.more || answer.sessions.length === 0 || oldest < reachMs) return undefined;
        }
        const past = oldest < freshFromMs || mustReach !== undefined;
        if (dates.length > 0) oldestDated = oldest;
        if (past && !resumed && going) {
          // Past what is read whole: the listing, from the page that holds where it stopped.
          resumed = true;
          // A cursor of an earlier build knows no place to find: it goes on a page further back.
          const back = going.stoppedAtMs === undefined ? LISTING_PAGE_SIZE : 0;
          const stopped = (going.page - 1) * LISTING_PAGE_SIZE - 1 + pushed - back;
          const resumeAt = Math.floor(Math.max(0, stopped) / LISTING_PAGE_SIZE) + 1;
          if (resumeAt > next) {
            next = resumeAt;
            if (going.stoppedAtMs !== undefined) mustReach = going.stoppedAtMs;
          }
        }
        // A page that dates none of its sessions shows nothing of where the listing stands and
        // moves it nowhere, but counts toward the bound, as every page read does.
        if (pagesRead >= LAST_LISTING_PAGES_PER_LOOK) {
          // The pages are numbered as they stood at the last one read, the sessions created
          // during this look in front: the next look counts from the newest listed now.
          // Not read (a 429, no turn): the newest seen first stands, and the next look reads
          // back what was created meanwhile.
          const first = await listPage(1).catch((error: unknown) => {
            if (signal().aborted) throw error;
            return { sessions: [] };
          });
          const newestNow = Math.max(...datesOf(first.sessions));
          if (Number.isFinite(newestNow)) newestMs = Math.max(newestNow, newestMs ?? newestNow);
          // Stopped while finding where the last look stopped: that place is still the one.
          // Stopped on an undated page: the oldest date of a page before it (the next look
          // reads again from there).
          const stoppedAtMs = mustReach ?? oldestDated;
          return {
            page: next,
            ...(stoppedAtMs === undefined ? {} : { stoppedAtMs }),
            ...(newestMs === undefined ? {} : { newestMs }),
          };
        }
        page = next;
      }
    }
  };
  return {
    /**
     * CancelSession unless the session has finished: `cancelled` when this ended it, `gone` when
     * the service said it does not know the session (nothing ended).
     */
    async endSessionIfLive(sessionId: string): Promise<{ cancelled: boolean; gone?: true }> {
      return await classified(async () => {
        const ended = await endIfLive(sessionId);
        return { cancelled: ended === 'cancelled', ...(ended === 'gone' ? { gone: true as const } : {}) };
      });
    },

    /** RedactSession; a session the service no longer knows counts as redacted. */
    async redactAtService(sessionId: string): Promise<{ redacted: boolean }> {
      return await classified(async () => ({ redacted: await redactIfKnown(sessionId) }));
    },

    /**
     * Deletes the session's stored attachments for good, destroys its results access key and the
     * verification's data key (every sealed copy of the person's data becomes unreadable). Idempotent.
     */
    async deleteLocalSessionData(
      sessionId: string,
      dataKeyId?: string,
    ): Promise<{ attachmentsDeleted: number; dataKeyDestroyed: boolean }> {
      // The session's claim names the key its data is sealed under: that one goes whatever key
      // the caller named (none, or another start's: a record written by a start that lost a
      // race). The named key goes too: the caller asked for its erasure.
      // A claim that cannot be read (the store down, an entry it cannot parse) holds back none
      // of the rest: the named key goes, the removals run, and the step fails to be tried again.
      const failures: unknown[] = [];
      const failed = (error: unknown) => {
        failures.push(error);
        return undefined;
      };
      const keyIds = new Set([await deps.vault.dataKeyOf(sessionId).catch(failed), dataKeyId]);
      let dataKeyDestroyed = false;
      for (const keyId of keyIds)
        if (keyId !== undefined && (await deps.dataKeys.destroy(keyId))) dataKeyDestroyed = true;
      // After the keys, which make every sealed copy unreadable (in histories too): a removal
      // that fails (the store down, a folder's sync, an entry it cannot read) holds none of them
      // back, nor the other removal; it fails the step, tried again (the claim keeps naming the
      // key until its entry goes).
      const [, attachmentsDeleted] = await Promise.all([
        deps.vault.destroy(sessionId).catch(failed),
        deps.blobs.deleteSession(sessionId).catch(failed),
      ]);
      if (failures.length > 0) throw failures[0];
      return { attachmentsDeleted: attachmentsDeleted ?? 0, dataKeyDestroyed };
    },

    /**
     * Starts a verification's redaction at `dueAt`, or `delayMs` from now without it (a Temporal
     * start delay: nothing waits meanwhile, and the build current then runs it). Idempotent: one
     * already started stays.
     */
    async scheduleRedaction(request: {
      args: RedactionArgs;
      delayMs: number;
      dueAt?: string;
    }): Promise<void> {
      const delayMs =
        request.dueAt === undefined ? request.delayMs : Math.max(0, Date.parse(request.dueAt) - Date.now());
      await startRedactionRun(request.args, delayMs);
    },

    /**
     * Records that a verification's data was erased (its redaction ran every step), destroying
     * the keys of the other starts under its reference. Idempotent.
     */
    async recordRedaction(args: {
      reference: string;
      redactedAt: string;
      dataKeyId?: string;
      sessionId?: string;
    }): Promise<void> {
      const { reference, redactedAt, ...erased } = args;
      const known = erased.dataKeyId !== undefined || erased.sessionId !== undefined;
      if (!(await recordErasure(deps, deps.dataKeys, reference, redactedAt, known ? erased : undefined)))
        Context.current().log.warn(
          'the erasure is not recorded: the reference has no record, or its record names another verification',
          { reference },
        );
    },

    /**
     * Destroys the keys the reference's record names (the other starts' too), recording no
     * erasure: a redaction cancelled after its local erasure, whose steps at the service were cut
     * short. Idempotent.
     */
    async destroyRecordKeys(args: {
      reference: string;
      dataKeyId?: string;
      sessionId?: string;
    }): Promise<void> {
      const { reference, ...erased } = args;
      if (!(await destroyRecordKeys(deps, deps.dataKeys, reference, erased)))
        Context.current().log.warn(
          "the record's keys are not destroyed: the reference has no record, or its record names another verification",
          { reference },
        );
    },

    /** Destroys a verification's data key (a verification without a session). Idempotent. */
    async destroyDataKey(dataKeyId: string): Promise<{ destroyed: boolean }> {
      return { destroyed: await deps.dataKeys.destroy(dataKeyId) };
    },

    /**
     * Destroys the data key of a start its workflow refused, when the reference's record names
     * that key and nothing ran under it (the record only started, no creation begun): the
     * client's start made both. A key the record does not name may be another verification's (an
     * input copied, or started again by hand after an earlier run): it is left, `destroyed` false.
     * Idempotent.
     */
    async destroyRefusedStartKey(args: {
      reference: unknown;
      dataKeyId: unknown;
    }): Promise<{ destroyed: boolean }> {
      const { reference, dataKeyId } = args;
      const notOwned = { destroyed: false };
      if (typeof reference !== 'string' || !isKeyId(dataKeyId)) return notOwned;
      const record = await deps.records.get(reference).catch((error: unknown) => {
        if (error instanceof RecordReferenceError) return undefined;
        throw error;
      });
      if (record?.dataKeyId !== dataKeyId || record.status !== 'started') return notOwned;
      if (await deps.vault.creation(verificationWorkflowId(reference))) return notOwned;
      return { destroyed: await deps.dataKeys.destroy(dataKeyId) };
    },

    /**
     * Closes the verification's creation (see `SessionVault.closeCreation`): from now on any
     * session claimed for it is an orphan. Forgets its attempts that nothing can come of, and
     * says whether the profile's sweep is needed; records how the verification ended. Idempotent.
     * The verification is the calling workflow, or `workflowId` (a close made for it later).
     */
    async closeCreation(args: {
      verificationProfileId: string;
      workflowId?: string;
      keptSessionId?: string;
      ending?: EndingToRecord;
    }): Promise<ClosedCreation> {
      const workflowId =
        args.workflowId ?? Context.current().info.workflowExecution?.workflowId ?? 'standalone';
      const marked = await closeAndRecord({ ...args, workflowId });
      const attempts = await deps.vault.createAttempts(args.verificationProfileId, workflowId);
      // A session claimed but not kept is marked an orphan already: the sweep takes it by its mark.
      await deps.vault.forgetCreateAttempts(
        args.verificationProfileId,
        attempts.filter(answered).map((attempt) => attempt.id),
      );
      return { sweepNeeded: marked.length > 0 || mayHaveOrphans(attempts, args.keptSessionId) };
    },

    /** The schedule of the orphan sweep, from this worker's settings (no service call). */
    orphanSweepSchedule(): Promise<OrphanSchedule> {
      return Promise.resolve(orphanSchedule(orphanSettings));
    },

    /**
     * One look of the orphan sweep of a verification profile. It first closes the creation of
     * verifications whose clean-up could not (`toClose`). Then every session of the profile
     * created since `coveredToMs` (a little before) up to now, that no create under way may still
     * claim, that nothing accounts for, and that lies in the window of a create attempt not
     * settled by an answer (from its start until the horizon after it ended), is taken for the
     * sweep (a claim that comes later is refused). Each taken or marked orphan is ended if live
     * and redacted, whatever the ending does; one the service refuses stays marked, is tried at
     * the next look, and is counted in `failures`. The look itself fails (and Temporal retries
     * it) only when the store or the listing does. Before the attempts of windows that closed
     * are forgotten, their windows are listed whole, over several looks when many sessions were
     * created since (`lastListing`: where the last look stopped).
     */
    async sweepOrphans(args: {
      verificationProfileId: string;
      coveredToMs?: number;
      lastListing?: LastListingCursor;
      toClose?: CreationToClose[];
    }): Promise<OrphanLook> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), LOOK_HEARTBEAT_EVERY_MS);
      try {
        return await classified(() => look(args));
      } finally {
        clearInterval(beat);
      }
    },
  };
}
