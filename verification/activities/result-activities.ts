import { createHash, type Hash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { attachmentAad, type Sealed } from '../../codec/sealed';
import { type AttachmentRef, type ResultMode } from '../domain/verification';
import { keptAccessKey } from './access-keys';
import { type VerificationDeps } from './deps';
import { classified } from './failures';
import {
  boundIdentity,
  defaultResultLimits,
  MISSING_IDENTITY_WAIT_MS,
  ResultsNotReadyError,
  ResultsRefusedError,
} from './result-limits';

/** Identity data and attachment references of a session. */
export interface FetchedResults {
  /** Sealed under the verification's data key: never readable in history once it is destroyed. */
  identity?: Sealed;
  attachments?: AttachmentRef[];
}

/** Results: identity data and attachments. */
export function resultActivities(deps: VerificationDeps) {
  const fetch = resultsFetcher(deps);
  return {
    /**
     * GetSessionResult, and with `data+attachments` every attachment streamed into the blob
     * store: the outcome holds references with sha256, never the bytes.
     */
    async fetchResults(args: {
      sessionId: string;
      mode: ResultMode;
      dataKeyId: string;
    }): Promise<FetchedResults> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), RESULTS_HEARTBEAT_EVERY_MS);
      try {
        return await fetch(args);
      } finally {
        clearInterval(beat);
      }
    },
  };
}

/** How often a results fetch heartbeats, whatever it waits on (a slow answer, a slow attachment). */
const RESULTS_HEARTBEAT_EVERY_MS = 1_000;

/** The results of a session, fetched and stored (see `fetchResults`). */
function resultsFetcher(deps: VerificationDeps) {
  const signal = () => Context.current().cancellationSignal;
  const limits = { ...defaultResultLimits, ...deps.resultLimits };
  return async (args: { sessionId: string; mode: ResultMode; dataKeyId: string }): Promise<FetchedResults> =>
    await classified(async () => {
      if (args.mode === 'none') return {};
      const { dataKeyId } = args;
      const resultsAccessKey = await keptAccessKey(deps, args.sessionId);
      const { identityData } = await deps.identity.sessions.getResult(args.sessionId, resultsAccessKey, {
        signal: signal(),
        maxBytes: limits.maxResultsAnswerBytes,
      });
      if (!identityData) {
        // Both times are the server's: this attempt's schedule against the fetch's first.
        const { scheduledTimestampMs, currentAttemptScheduledTimestampMs } = Context.current().info;
        const waitedMs = currentAttemptScheduledTimestampMs - scheduledTimestampMs;
        if (waitedMs >= MISSING_IDENTITY_WAIT_MS)
          throw new ResultsRefusedError('the succeeded session was answered without identity data');
        throw new ResultsNotReadyError('the succeeded session was answered without identity data yet');
      }
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
      }
      return { identity, attachments };
    });
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
    yield chunk;
  }
  if (size !== info.sizeBytes) throw refused();
}
