import { Context } from '@temporalio/activity';
import { ApiError, NotFoundError } from '../api/http/errors';
import { type ActivityDeps } from './deps';
import { cancelUnlessDone } from './end-session';
import { classified } from './failures';
import { inWindows, planSweep, RELOOK_MS } from './orphan-windows';
import { resolveOrphanSettings, type OrphanSchedule, orphanSchedule } from './orphan-settings';
import { stateOf } from './wire-views';

/** What one look of the profile's orphan sweep did and found. */
export interface OrphanLook {
  /** Live orphans cancelled at the service. */
  cancelled: string[];
  /** Orphans redacted (their keys destroyed). */
  redacted: string[];
  /** Sessions created up to this time were judged; the next look starts a little before it. */
  coveredToMs: number;
  /** A later look is needed (a window still open, an attempt under way, or an orphan not swept). */
  open: boolean;
}

/** How a verification's creation closed. */
export interface ClosedCreation {
  /** An orphan may exist (an attempt not settled by an answer, or a session it does not keep): sweep the profile. */
  sweepNeeded: boolean;
}

/** Redaction and orphan clean-up. */
export function cleanupActivities(deps: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;
  const orphanSettings = resolveOrphanSettings(deps.orphans);
  /** RedactSession; false when the service no longer knows the session. */
  const redactIfKnown = async (sessionId: string): Promise<boolean> => {
    try {
      await deps.identity.sessions.redact(sessionId, { signal: signal() });
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  };
  /** Ends the session unless it is done; true when it was live and is cancelled now. */
  const endIfLive = async (sessionId: string): Promise<boolean> => {
    try {
      const state = await cancelUnlessDone(deps.identity.sessions, sessionId, { signal: signal() });
      return state.status === 'cancelled';
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  };
  return {
    /** CancelSession unless the session has finished (or is unknown); `cancelled` false when there was nothing to end. */
    async endSessionIfLive(sessionId: string): Promise<{ cancelled: boolean }> {
      return await classified(async () => ({ cancelled: await endIfLive(sessionId) }));
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
      const attachmentsDeleted = await deps.blobs.deleteSession(sessionId);
      // The claim names the data key too: a redaction started without it (redactNow) still shreds.
      const keyId = dataKeyId ?? (await deps.vault.dataKeyOf(sessionId));
      await deps.vault.destroy(sessionId);
      const dataKeyDestroyed = keyId === undefined ? false : await deps.dataKeys.destroy(keyId);
      return { attachmentsDeleted, dataKeyDestroyed };
    },

    /** Destroys a verification's data key (a verification without a session). Idempotent. */
    async destroyDataKey(dataKeyId: string): Promise<{ destroyed: boolean }> {
      return { destroyed: await deps.dataKeys.destroy(dataKeyId) };
    },

    /**
     * Closes the verification's creation (see `SessionVault.closeCreation`): from now on any
     * session claimed for it is an orphan. Forgets its attempts that nothing can come of, and
     * says whether the profile's sweep is needed. Idempotent.
     */
    async closeCreation(args: {
      verificationProfileId: string;
      keptSessionId?: string;
    }): Promise<ClosedCreation> {
      const workflowId = Context.current().info.workflowExecution?.workflowId ?? 'standalone';
      const marked = await deps.vault.closeCreation(workflowId, args.keptSessionId);
      const attempts = await deps.vault.createAttempts(args.verificationProfileId, workflowId);
      const answered = attempts.filter((attempt) => attempt.settled && attempt.endedAtMs !== undefined);
      await deps.vault.forgetCreateAttempts(
        args.verificationProfileId,
        answered.map((attempt) => attempt.id),
      );
      // A session claimed but not kept is marked an orphan already; the sweep takes it.
      const notKept = answered.some(
        (attempt) => attempt.sessionId !== undefined && attempt.sessionId !== args.keptSessionId,
      );
      return { sweepNeeded: marked.length > 0 || notKept || attempts.some((attempt) => !attempt.settled) };
    },

    /** The schedule of the orphan sweep, from this worker's settings (no service call). */
    orphanSweepSchedule(): Promise<OrphanSchedule> {
      return Promise.resolve(orphanSchedule(orphanSettings));
    },

    /**
     * One look of the orphan sweep of a verification profile. Sessions marked orphans (claimed
     * for a verification that kept another, or after it closed) are ended if live, redacted and
     * their keys destroyed. Then every session of the profile created since `coveredToMs` (a
     * little before) up to now, that no create under way may still claim, that is claimed by
     * nothing, and that lies in the window of a create attempt not settled by an answer (from its
     * start until the horizon after it ended), is swept the same way. One orphan the service
     * refuses does not stop the others; the look then fails and is tried again.
     */
    async sweepOrphans(args: { verificationProfileId: string; coveredToMs?: number }): Promise<OrphanLook> {
      return await classified(async () => {
        const { verificationProfileId: profileId } = args;
        const look: OrphanLook = {
          cancelled: [],
          redacted: [],
          coveredToMs: args.coveredToMs ?? 0,
          open: false,
        };
        const failures: unknown[] = [];
        const sweep = async (sessionId: string, live: boolean): Promise<boolean> => {
          Context.current().heartbeat();
          try {
            if (live && (await endIfLive(sessionId))) look.cancelled.push(sessionId);
            // Redacted whatever the cancel did: a failing cancel must not keep the person's data.
            await redactIfKnown(sessionId);
            await deps.vault.destroy(sessionId);
            look.redacted.push(sessionId);
            return true;
          } catch (error) {
            if (signal().aborted) throw error;
            failures.push(error);
            return false;
          }
        };
        const nowMs = Date.now();
        const plan = planSweep(await deps.vault.createAttempts(profileId), nowMs, orphanSettings.horizonMs);
        for (const sessionId of await deps.vault.orphans(profileId))
          if (await sweep(sessionId, true)) await deps.vault.orphanSwept(sessionId);
        const fromMs = Math.max(
          Math.min(...plan.windows.map((window) => window.fromMs)),
          (args.coveredToMs ?? Number.NEGATIVE_INFINITY) - RELOOK_MS,
        );
        if (plan.windows.length > 0 && fromMs <= plan.coverToMs) {
          for (let page = 1; ; page += 1) {
            Context.current().heartbeat();
            const answer = await deps.identity.sessions.list(
              profileId,
              { orderBy: 'Created', orderDirection: 'Descending', pageSize: 50, page },
              { signal: signal() },
            );
            const candidates = answer.sessions.filter((session) => {
              const createdMs = (session.created ?? Number.NaN) * 1000;
              return createdMs >= fromMs && createdMs <= plan.coverToMs && inWindows(plan.windows, createdMs);
            });
            const claimed = await deps.vault.claimed(candidates.map((session) => session.id));
            for (const session of candidates)
              if (!claimed.has(session.id.toLowerCase())) await sweep(session.id, !stateOf(session).done);
            const oldest = answer.sessions.at(-1)?.created;
            if (!answer.more || answer.sessions.length === 0 || (oldest ?? 0) * 1000 < fromMs) break;
          }
        }
        if (failures.length > 0) {
          // One worth retrying goes first, so a refusal does not stop the others' retries.
          throw failures.find((error) => !(error instanceof ApiError) || error.retryable) ?? failures[0];
        }
        await deps.vault.forgetCreateAttempts(profileId, plan.done);
        look.coveredToMs = Math.max(plan.coverToMs, look.coveredToMs);
        look.open = plan.open || (await deps.vault.orphans(profileId)).length > 0;
        return look;
      });
    },
  };
}
