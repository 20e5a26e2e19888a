import { ActivityNotFoundError, type Client } from '@temporalio/client';
import { ensureApplicationFailure } from '@temporalio/common';
import { encodeErrorToFailure, encodeToPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { grpcStatus, grpcStatusOf } from '../../common/grpc-status';

/** What a held attempt leaves the next one (its last heartbeat's details): its last poll's number, and its own. */
export interface HeldPollDetails {
  polls: number;
  attempt: number;
}

/** True when `value` is what a held attempt left (see {@link HeldPollDetails}). */
export function isHeldPollDetails(value: unknown): value is HeldPollDetails {
  if (typeof value !== 'object' || value === null) return false;
  const { polls, attempt } = value as Record<string, unknown>;
  return Number.isInteger(polls) && Number.isInteger(attempt);
}

/** The server calls of held attempts, by task token. */
export interface AttemptServer {
  complete(taskToken: Uint8Array, result: unknown): Promise<void>;
  /** Fails the attempt and records `details` as its last heartbeat's, in one call. */
  fail(taskToken: Uint8Array, failure: unknown, details: HeldPollDetails): Promise<void>;
  /** Throws `ActivityCancelledError` (and the other `Activity…Error`s) as `AsyncCompletionClient.heartbeat` does. */
  heartbeat(taskToken: Uint8Array, details: HeldPollDetails): Promise<void>;
  reportCancellation(taskToken: Uint8Array): Promise<void>;
}

/** The worker's client as an {@link AttemptServer}: payloads and failures through its data converter. */
export function attemptServer(client: Client): AttemptServer {
  const { namespace, identity, loadedDataConverter } = client.options;
  return {
    complete: (taskToken, result) => client.activity.complete(taskToken, result),
    heartbeat: (taskToken, details) => client.activity.heartbeat(taskToken, details),
    reportCancellation: (taskToken) => client.activity.reportCancellation(taskToken),
    // `AsyncCompletionClient.fail` sends no heartbeat details: the request itself carries them.
    async fail(taskToken, failure, details) {
      const request = {
        namespace,
        identity,
        taskToken,
        failure: await encodeErrorToFailure(loadedDataConverter, ensureApplicationFailure(failure)),
        lastHeartbeatDetails: { payloads: await encodeToPayloads(loadedDataConverter, details) },
      };
      try {
        await client.workflowService.respondActivityTaskFailed(request);
      } catch (error) {
        if (grpcStatusOf(error) === grpcStatus.NOT_FOUND) throw new ActivityNotFoundError('Not found');
        throw error;
      }
    },
  };
}
