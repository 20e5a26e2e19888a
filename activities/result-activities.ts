import { Context } from '@temporalio/activity';
import { type AttachmentRef, type ResultMode } from '../domain/verification';
import { type ActivityDeps } from './deps';
import { classified } from './failures';

/** Identity data and attachment references of a session. */
export interface FetchedResults {
  identity?: Record<string, unknown>;
  attachments?: AttachmentRef[];
}

/** Results: identity data and attachments. */
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
  };
}
