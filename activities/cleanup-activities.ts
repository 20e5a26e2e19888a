import { Context } from '@temporalio/activity';
import { sessionDataKeyId } from '../stores/session-vault';
import { ApiError, NotFoundError, ValidationError } from '../api/http/errors';
import { paginateSessions } from '../api/identity/pagination';
import { type ActivityDeps } from './deps';
import { classified } from './failures';
import { unsettledWindows } from './create-windows';
import { stateOf } from './wire-views';

/** What `sweepOrphans` did, by session id. */
export interface SweptOrphans {
  cancelled: string[];
  redacted: string[];
}

/** Redaction and orphan clean-up. */
export function cleanupActivities(deps: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;
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
  /** CancelSession; false when it had finished meanwhile (400) or is unknown (404). */
  const cancelIfLive = async (sessionId: string): Promise<boolean> => {
    try {
      await deps.identity.sessions.cancel(sessionId, { signal: signal() });
      return true;
    } catch (error) {
      if (error instanceof ValidationError || error instanceof NotFoundError) return false;
      throw error;
    }
  };
  return {
    /** CancelSession unless it has already finished; `cancelled` false when there was nothing to end. */
    async endSessionIfLive(sessionId: string): Promise<{ cancelled: boolean }> {
      return await classified(async () => ({ cancelled: await cancelIfLive(sessionId) }));
    },

    /** RedactSession; a session the service no longer knows counts as redacted. */
    async redactAtService(sessionId: string): Promise<{ redacted: boolean }> {
      return await classified(async () => ({ redacted: await redactIfKnown(sessionId) }));
    },

    /**
     * Deletes the session's stored attachments, destroys its results access key and the
     * verification's data key (every sealed copy of the person's data becomes unreadable). Idempotent.
     */
    async deleteLocalSessionData(
      sessionId: string,
      dataKeyId?: string,
    ): Promise<{ attachmentsDeleted: number; dataKeyDestroyed: boolean }> {
      const attachmentsDeleted = await deps.blobs.deleteSession(sessionId);
      // The claim names the data key too: a redaction started without it (redactNow) still shreds.
      const keyId = dataKeyId ?? (await sessionDataKeyId(deps.vault, sessionId));
      await deps.vault.destroy(sessionId);
      const dataKeyDestroyed = keyId === undefined ? false : await deps.dataKeys.destroy(keyId);
      return { attachmentsDeleted, dataKeyDestroyed };
    },

    /** Destroys a verification's data key (a verification without a session). Idempotent. */
    async destroyDataKey(dataKeyId: string): Promise<{ destroyed: boolean }> {
      return { destroyed: await deps.dataKeys.destroy(dataKeyId) };
    },

    /** Forgets a verification's create attempts once no orphan can be left. Idempotent. */
    async forgetCreateAttempts(workflowId: string): Promise<void> {
      await deps.vault.forgetCreateAttempts(workflowId);
    },

    /**
     * Sweeps the sessions orphaned by this workflow's unsettled create attempts: every session of
     * the profile created inside one of their windows, other than `keepSessionId` and not
     * claimed by another workflow, is cancelled if live and then redacted, and its key (if it
     * was claimed here) destroyed. Idempotent.
     */
    async sweepOrphans(args: {
      verificationProfileId: string;
      workflowId: string;
      keepSessionId?: string;
    }): Promise<SweptOrphans> {
      return await classified(async () => {
        const swept: SweptOrphans = { cancelled: [], redacted: [] };
        // One orphan the service refuses does not stop the others; the first failure is
        // rethrown at the end, so the (idempotent) sweep is tried again.
        const failures: unknown[] = [];
        const sweep = async (sessionId: string, live: boolean) => {
          if (swept.redacted.includes(sessionId)) return;
          try {
            if (live && (await cancelIfLive(sessionId))) swept.cancelled.push(sessionId);
            await redactIfKnown(sessionId);
            if ((await deps.vault.claimant(sessionId)) === args.workflowId)
              await deps.vault.destroy(sessionId);
            swept.redacted.push(sessionId);
          } catch (error) {
            if (signal().aborted) throw error;
            failures.push(error);
          }
        };
        // A failure worth retrying goes first, so one refusal does not stop the others' retries.
        const done = () => {
          const retryable = failures.find((error) => !(error instanceof ApiError) || error.retryable);
          if (failures.length > 0) throw retryable ?? failures[0];
          return swept;
        };
        // Swept whole: the attempts' records are no longer needed.
        const forgotten = async () => {
          const result = done();
          await deps.vault.forgetCreateAttempts(args.workflowId);
          return result;
        };
        const attempts = await deps.vault.createAttempts(args.workflowId);
        // Sessions an attempt created and claimed after the workflow had stopped waiting for it.
        for (const { sessionId } of attempts) {
          Context.current().heartbeat();
          if (sessionId && sessionId !== args.keepSessionId) await sweep(sessionId, true);
        }
        // Sessions of attempts whose answer never came: found by their creation time.
        const windows = unsettledWindows(attempts, Date.now());
        if (windows.length === 0) return await forgotten();
        const earliest = Math.min(...windows.map((w) => w.fromMs));
        const sessions = paginateSessions(
          deps.identity.sessions,
          args.verificationProfileId,
          { orderBy: 'Created', orderDirection: 'Descending', pageSize: 50 },
          { signal: signal() },
        );
        for await (const session of sessions) {
          Context.current().heartbeat();
          if (session.created === undefined || session.created === null) continue;
          const createdMs = session.created * 1000;
          if (createdMs < earliest) break;
          const inWindow = windows.some((w) => createdMs >= w.fromMs && createdMs <= w.toMs);
          if (!inWindow || session.id === args.keepSessionId) continue;
          const claimant = await deps.vault.claimant(session.id);
          if (claimant !== undefined && claimant !== args.workflowId) continue;
          await sweep(session.id, !stateOf(session).done);
        }
        return await forgotten();
      });
    },
  };
}
