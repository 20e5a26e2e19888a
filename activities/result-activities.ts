import { createHash, type Hash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { attachmentAad, legacyDataKeyId, type Sealed } from '../domain/sealed';
import { type AttachmentRef, type ResultMode } from '../domain/verification';
import { type ActivityDeps } from './deps';
import { classified } from './failures';
import { boundIdentity, defaultResultLimits, ResultsRefusedError } from './result-limits';

/** Identity data and attachment references of a session. */
export interface FetchedResults {
  /** Sealed under the verification's data key: never readable in history once it is destroyed. */
  identity?: Sealed;
  attachments?: AttachmentRef[];
}

/** Results: identity data and attachments. */
export function resultActivities(deps: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;
  const limits = { ...defaultResultLimits, ...deps.resultLimits };
  return {
    /**
     * GetSessionResult, and with `data+attachments` every attachment streamed into the blob
     * store: the outcome holds references with sha256, never the bytes.
     */
    async fetchResults(args: {
      sessionId: string;
      mode: ResultMode;
      /** Absent for runs started before data keys existed. */
      dataKeyId?: string;
    }): Promise<FetchedResults> {
      return await classified(async () => {
        if (args.mode === 'none') return {};
        // A run started before data keys existed gets one now, named after its workflow.
        const dataKeyId =
          args.dataKeyId ??
          (await deps.dataKeys.create(
            legacyDataKeyId(Context.current().info.workflowExecution?.workflowId ?? 'standalone'),
          ));
        const resultsAccessKey = await deps.vault.accessKey(args.sessionId);
        const { identityData } = await deps.identity.sessions.getResult(args.sessionId, resultsAccessKey, {
          signal: signal(),
        });
        if (!identityData) return {};
        const { attachments: infos, ...fields } = identityData;
        const identity = await deps.dataKeys.seal(
          dataKeyId,
          boundIdentity(fields, limits.maxIdentityFieldBytes),
        );
        if (args.mode !== 'data+attachments') return { identity };
        if (infos.length > limits.maxAttachments)
          throw new ResultsRefusedError(`${infos.length} attachments, more than ${limits.maxAttachments}`);
        const tooLarge = infos.find((info) => info.sizeBytes > limits.maxAttachmentBytes);
        if (tooLarge)
          throw new ResultsRefusedError(
            `attachment ${tooLarge.id} declares ${tooLarge.sizeBytes} bytes, more than ${limits.maxAttachmentBytes}`,
          );
        const attachments: AttachmentRef[] = [];
        for (const info of infos) {
          // Stored sealed under the data key (shredded with it); the reference describes the content.
          const plain = { hash: createHash('sha256'), sizeBytes: 0 };
          const store = async (content: AsyncIterable<Buffer>) => {
            const sealed = await deps.dataKeys.sealStream(
              dataKeyId,
              attachmentAad(args.sessionId, info.id),
              measured(ofDeclaredSize(content, info), plain),
            );
            return await deps.blobs.put(args.sessionId, info.id, sealed);
          };
          const { contentType, stored } = await deps.identity.sessions.downloadAttachment(
            { sessionId: args.sessionId, attachmentId: info.id, resultsAccessKey, maxBytes: info.sizeBytes },
            store,
            { signal: signal() },
          );
          attachments.push({
            id: info.id,
            type: info.type,
            contentType,
            uri: stored.uri,
            sha256: plain.hash.digest('hex'),
            sizeBytes: plain.sizeBytes,
          });
          Context.current().heartbeat(attachments.length);
        }
        return { identity, attachments };
      });
    },
  };
}

/** The content as it passes, hashed and counted into `into`. */
async function* measured(
  content: AsyncIterable<Buffer>,
  into: { hash: Hash; sizeBytes: number },
): AsyncGenerator<Buffer> {
  for await (const chunk of content) {
    into.hash.update(chunk);
    into.sizeBytes += chunk.length;
    yield chunk;
  }
}

/** The content, refused as soon as it exceeds its declared size, or at its end when it falls short. */
async function* ofDeclaredSize(
  content: AsyncIterable<Buffer>,
  info: { id: string; sizeBytes: number },
): AsyncGenerator<Buffer> {
  let size = 0;
  const refused = () =>
    new ResultsRefusedError(`attachment ${info.id} does not have the ${info.sizeBytes} bytes it declares`);
  for await (const chunk of content) {
    size += chunk.length;
    if (size > info.sizeBytes) throw refused();
    // A large attachment arriving slowly must not look like a stuck activity.
    Context.current().heartbeat({ attachment: info.id, bytes: size });
    yield chunk;
  }
  if (size !== info.sizeBytes) throw refused();
}
