import { Context } from '@temporalio/activity';
import { NotFoundError, ValidationError } from '../api/http/errors';
import { paginateSessions } from '../api/identity/pagination';
import { type AttachmentRef, type ResultMode } from '../domain/verification';
import { type ActivityDeps } from './deps';
import { classified } from './failures';
import { stateOf } from './wire-views';

/** Identity data and attachment references of a session. */
export interface FetchedResults {
  identity?: Record<string, unknown>;
  attachments?: AttachmentRef[];
}

/** Results, redaction and orphan clean-up. */
export function resultActivities(deps: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;
  return {
    /**
     * GetSessionResult, and with `data+attachments` every attachment streamed into the blob
     * store: the outcome holds references with sha256, never the bytes.
     */
    async fetchResults(args: { sessionId: string; mode: ResultMode }): Promise<FetchedResults> {
      return await classified(async () => {
        if (args.mode === 'none') return {};
        const resultsAccessKey = await deps.vault.accessKey(args.sessionId);
        const { identityData } = await deps.identity.sessions.getResult(args.sessionId, resultsAccessKey, {
          signal: signal(),
        });
        if (!identityData) return {};
        const { attachments: infos, ...identity } = identityData;
        if (args.mode !== 'data+attachments') return { identity };
        const attachments: AttachmentRef[] = [];
        for (const info of infos) {
          const attachment = await deps.identity.sessions.getAttachment(
            { sessionId: args.sessionId, attachmentId: info.id, resultsAccessKey },
            { signal: signal() },
          );
          const stored = await deps.blobs.put(
            args.sessionId,
            info.id,
            Buffer.from(attachment.content, 'base64'),
          );
          attachments.push({ id: info.id, type: info.type, contentType: attachment.contentType, ...stored });
          Context.current().heartbeat(attachments.length);
        }
        return { identity, attachments };
      });
    },

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
