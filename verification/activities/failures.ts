import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ApiError } from '../../api/http/errors';
import { ResultsRefusedError } from './result-limits';
import { DataKeyDestroyedError } from '../../codec/data-keys';
import { SessionSecretMissingError } from '../../stores/session-vault';
import { SessionDataDeletedError } from '../../stores/blob-store';

/**
 * The longest delay before a retry that a service's `Retry-After` may ask for: a longer one is
 * tried after this (the service may say so again), so no retry waits past an activity's bound.
 */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The one place where API outcomes become Temporal retry decisions: the failure type is the
 * error class, validation/auth/not-found are not retried, and the service's `Retry-After`
 * becomes the next retry delay. Other errors pass through unchanged (Temporal retries them).
 * The ApiError itself is not attached as the cause: its properties (a raw body among them)
 * would be printed by the SDK's activity-failure log line; message, type and details suffice.
 */
export function toActivityFailure(error: unknown): unknown {
  if (error instanceof ApiError) {
    return ApplicationFailure.create({
      type: error.code,
      message: error.message,
      nonRetryable: !error.retryable,
      ...(error.retryAfterMs !== undefined
        ? { nextRetryDelay: Math.min(error.retryAfterMs, MAX_RETRY_AFTER_MS) }
        : {}),
      details: [{ status: error.status ?? null, traceId: error.traceId ?? null, operation: error.operation }],
    });
  }
  if (
    error instanceof SessionSecretMissingError ||
    error instanceof SessionDataDeletedError ||
    error instanceof ResultsRefusedError ||
    error instanceof DataKeyDestroyedError
  ) {
    return ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
  }
  return error;
}

/**
 * Runs an activity body, classifying its failure once. An activity cancelled meanwhile reports
 * the cancellation, whatever its aborted call threw, so the workflow (and the server) see it
 * cancelled rather than failed and retried. `signal` is the activity's cancellation (a poll held
 * between its calls has one of its own: see `HeldPolls`).
 */
export async function classified<T>(
  body: () => Promise<T>,
  signal: () => AbortSignal = () => Context.current().cancellationSignal,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const cancellationSignal = signal();
    if (cancellationSignal.aborted) throw cancellationSignal.reason ?? error;
    throw toActivityFailure(error);
  }
}
