import { createHash, type Hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context, type Info } from '@temporalio/activity';
import { attachmentAad, type Sealed } from '../../codec/sealed';
import { type CallPriority } from '../../api/http/call-budget';
import { NotFoundError } from '../../api/http/errors';
import { type NormalisedSessionState } from '../domain/session-status';
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

/**
 * What a check or a poll that finds the session succeeded fetches along with it (the identity
 * data, for results `data`): the workflow then schedules no results fetch of its own, one
 * activity and one workflow task fewer between the user's finishing and the outcome. Nothing of
 * it is stored (the sealed identity travels in the activity's answer): an answer dropped (the
 * call cancelled, given way) leaves nothing in the stores, and one that still reaches the history
 * is sealed under the data key, as the outcome's copy is.
 */
export interface ResultsAlong {
  /** The verification's data key: the identity data is sealed under it. */
  dataKeyId: string;
}

/**
 * How long a check or a poll spends on the results it fetches along, at most; past it (or on any
 * failure) it answers without them, and the results fetch of its own does the rest.
 */
export const RESULTS_ALONG_BOUND_MS = 15_000;
/** What the fetch along leaves of its attempt's time, so that the success found is answered. */
const ATTEMPT_MARGIN_MS = 5_000;

/** When an activity's attempt runs out of its start-to-close timeout (ms since the epoch). */
function attemptEndsAtMs(info: Info): number {
  return info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs;
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
        return await classified(async () => {
          // Both times are the server's: this attempt's schedule against the fetch's first.
          const { scheduledTimestampMs, currentAttemptScheduledTimestampMs } = context.info;
          const waitedMs = currentAttemptScheduledTimestampMs - scheduledTimestampMs;
          const fetched = await fetch(args, {
            signal: context.cancellationSignal,
            missingUntilMs: Date.now() + MISSING_IDENTITY_WAIT_MS - waitedMs,
          });
          if (fetched) return fetched;
          if (waitedMs >= MISSING_IDENTITY_WAIT_MS)
            throw new ResultsRefusedError(
              "the succeeded session's results were answered without identity data, or not found",
            );
          throw new ResultsNotReadyError(
            "the succeeded session's results were answered without identity data, or not found, yet",
          );
        });
      } finally {
        clearInterval(beat);
      }
    },
  };
}

/**
 * The results a check or a poll fetches along (see {@link ResultsAlong}) once it found the session
 * `succeeded`, at the call's `priority`: undefined whenever that does not work out at once (not
 * asked, not succeeded, no identity data yet, a refusal, a failure, the call cancelled, or its
 * bound passed: {@link RESULTS_ALONG_BOUND_MS}, and never so late that the attempt's own time
 * runs out, which would lose the success it found). A fetch given up on may still finish: it
 * stores nothing, and its answer is dropped.
 */
export function resultsAlong(deps: VerificationDeps) {
  const fetch = resultsFetcher(deps);
  return async (
    sessionId: string,
    along: ResultsAlong | undefined,
    found: NormalisedSessionState,
    /** `attemptEndsAtMs`: when the attempt's bound ends (ms since the epoch). @default the activity's own attempt's */
    call: { signal: AbortSignal; priority: CallPriority; attemptEndsAtMs?: number },
  ): Promise<FetchedResults | undefined> => {
    if (!along || found.status !== 'succeeded') return undefined;
    const endsAtMs = call.attemptEndsAtMs ?? attemptEndsAtMs(Context.current().info);
    const boundMs = Math.min(RESULTS_ALONG_BOUND_MS, endsAtMs - ATTEMPT_MARGIN_MS - Date.now());
    if (!(boundMs > 0)) return undefined;
    const bound = AbortSignal.timeout(boundMs);
    const fetched = fetch(
      { sessionId, mode: 'data', dataKeyId: along.dataKeyId },
      { signal: AbortSignal.any([call.signal, bound]), priority: call.priority },
    ).catch(() => undefined);
    // The store's reads (the access key, the data key) do not take the signal: the bound holds
    // them too.
    const givenUp = new Promise<undefined>((resolve) => {
      if (bound.aborted) resolve(undefined);
      bound.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    return await Promise.race([fetched, givenUp]);
  };
}

/** The first wait before an attachment answered 404 is asked again; doubled each time, up to 30 s. */
const ATTACHMENT_ASK_FIRST_MS = 1_000;
const ATTACHMENT_ASK_MAX_MS = 30_000;

/** How often a results fetch heartbeats, whatever it waits on (a slow answer, a slow attachment). */
const RESULTS_HEARTBEAT_EVERY_MS = 1_000;

/**
 * A 404 for a succeeded session's results or attachment: it proves nothing (a replica behind,
 * not served yet), so it is asked again; a 410 says they are gone.
 */
function notServedYet(error: unknown): boolean {
  return error instanceof NotFoundError && error.status === 404;
}

/**
 * The results of a session, fetched and stored (see `fetchResults`); undefined when its answer
 * had no identity data, or was a 404.
 */
function resultsFetcher(deps: VerificationDeps) {
  const limits = { ...defaultResultLimits, ...deps.resultLimits };
  return async (
    args: { sessionId: string; mode: ResultMode; dataKeyId: string },
    call: {
      signal: AbortSignal;
      priority?: CallPriority;
      /**
       * Until then (this clock) an attachment answered 404 is asked again, alone: the interface
       * defines no 404 for it, so one proves nothing (not served yet, a replica behind); the
       * attachments stored before it stay. Without it, a 404 refuses the results.
       */
      missingUntilMs?: number;
    },
  ): Promise<FetchedResults | undefined> => {
    const { signal } = call;
    if (args.mode === 'none') return {};
    const { dataKeyId } = args;
    const resultsAccessKey = await keptAccessKey(deps, args.sessionId);
    let answer: Awaited<ReturnType<typeof deps.identity.sessions.getResult>>;
    try {
      answer = await deps.identity.sessions.getResult(args.sessionId, resultsAccessKey, {
        signal,
        ...(call.priority ? { priority: call.priority } : {}),
        maxBytes: limits.maxResultsAnswerBytes,
      });
    } catch (error) {
      // Asked again, as results without identity data are.
      if (notServedYet(error)) return undefined;
      throw error;
    }
    const { identityData } = answer;
    if (!identityData) return undefined;
    const { attachments: infos, ...fields } = identityData;
    const identity = await deps.dataKeys.seal(dataKeyId, boundIdentity(fields, limits.maxIdentityFieldBytes));
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
      const download = () =>
        deps.identity.sessions.downloadAttachment(
          { sessionId: args.sessionId, attachmentId: info.id, resultsAccessKey, maxBytes: info.sizeBytes },
          store,
          { signal },
        );
      let waitMs = ATTACHMENT_ASK_FIRST_MS;
      let answer: Awaited<ReturnType<typeof download>> | undefined;
      while (answer === undefined) {
        try {
          answer = await download();
        } catch (error) {
          // Asked again until `missingUntilMs`.
          if (!notServedYet(error)) throw error;
          if (call.missingUntilMs === undefined || Date.now() + waitMs > call.missingUntilMs)
            throw new ResultsRefusedError(
              `the attachment ${info.id} was answered 404 until the fetch gave up`,
            );
          await sleep(waitMs, undefined, { signal });
          waitMs = Math.min(2 * waitMs, ATTACHMENT_ASK_MAX_MS);
        }
      }
      const { contentType, stored } = answer;
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
    yield chunk;
  }
  if (size !== info.sizeBytes) throw refused();
}
