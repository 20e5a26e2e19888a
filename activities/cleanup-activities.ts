import { Context } from '@temporalio/activity';
import { NotFoundError, ValidationError } from '../api/http/errors';
import { paginateSessions } from '../api/identity/pagination';
import { type ActivityDeps } from './deps';
import { classified } from './failures';
import { stateOf } from './wire-views';

/** Redaction and orphan clean-up. */
export function cleanupActivities(deps: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;
  return {
    /** RedactSession; a session the service no longer knows counts as redacted. */
    async redactAtService(sessionId: string): Promise<{ redacted: boolean }> {
      return await classified(async () => {
        try {
          await deps.identity.sessions.redact(sessionId, { signal: signal() });
          return { redacted: true };
        } catch (error) {
          if (error instanceof NotFoundError) return { redacted: false };
          throw error;
        }
      });
    },

    /** Deletes the session's stored attachments and destroys its results access key. Idempotent. */
    async deleteLocalSessionData(sessionId: string): Promise<{ attachmentsDeleted: number }> {
      const attachmentsDeleted = await deps.blobs.deleteSession(sessionId);
      await deps.vault.destroy(sessionId);
      return { attachmentsDeleted };
    },

    /**
     * Cancels sessions orphaned by a create whose answer was lost: created on the profile inside
     * one of the windows, still running, claimed by no workflow, and not the one kept.
     */
    async cancelOrphanedSessions(args: {
      verificationProfileId: string;
      windows: Array<{ fromMs: number; toMs: number }>;
      keepSessionId: string;
    }): Promise<string[]> {
      return await classified(async () => {
        const earliest = Math.min(...args.windows.map((w) => w.fromMs));
        const cancelled: string[] = [];
        const sessions = paginateSessions(
          deps.identity.sessions,
          args.verificationProfileId,
          { orderBy: 'Created', orderDirection: 'Descending', pageSize: 50 },
          { signal: signal() },
        );
        for await (const session of sessions) {
          const createdMs = (session.created ?? 0) * 1000;
          if (createdMs < earliest - 1000) break;
          const inWindow = args.windows.some((w) => createdMs >= w.fromMs - 1000 && createdMs <= w.toMs);
          if (!inWindow || session.id === args.keepSessionId || stateOf(session).done) continue;
          if (await deps.vault.isClaimed(session.id)) continue;
          try {
            await deps.identity.sessions.cancel(session.id, { signal: signal() });
            cancelled.push(session.id);
          } catch (error) {
            if (!(error instanceof ValidationError)) throw error;
          }
        }
        return cancelled;
      });
    },
  };
}
