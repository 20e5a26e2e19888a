import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

// Client side: the features' clients send their workflows' updates through it.

/** The delays before an update refused while its workflow moved to its next run is sent again (6.3 s in all). */
const MOVING_ON_RESEND_MS = [100, 200, 400, 800, 1_600, 3_200];

/** True when the workflow's update failed with an `ApplicationFailure` of this type (its validator's or its handler's). */
export function refusedAs(error: unknown, type: string): boolean {
  return (
    error instanceof WorkflowUpdateFailedError &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === type
  );
}

/** The longest wait between two sends once {@link MOVING_ON_RESEND_MS} is spent. */
const MOVING_ON_RESEND_EVERY_MS = 5_000;

/**
 * Sends an update again when it was refused (failure type `movingOnType`) because its workflow
 * was moving to its next run: the next run takes it. Sent again after each of
 * {@link MOVING_ON_RESEND_MS}, then every {@link MOVING_ON_RESEND_EVERY_MS} until `withinMs`
 * (the longest its workflow takes to move on: the changes it accepted finish first) have passed;
 * the last refusal is thrown.
 */
export async function sentAcrossRuns<T>(
  send: () => Promise<T>,
  movingOnType: string,
  options: { withinMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const { signal } = options;
  const deadline = Date.now() + (options.withinMs ?? 0);
  for (let resend = 0; ; resend += 1) {
    try {
      return await send();
    } catch (error) {
      if (!refusedAs(error, movingOnType)) throw error;
      const delayMs = MOVING_ON_RESEND_MS[resend] ?? MOVING_ON_RESEND_EVERY_MS;
      if (resend >= MOVING_ON_RESEND_MS.length && Date.now() + delayMs > deadline) throw error;
      // An activity given up sends nothing more (its change could land after its compensation),
      // and fails with its cancellation, which Temporal retries or records as such.
      if (!signal?.aborted)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, delayMs);
          signal?.addEventListener('abort', done, { once: true });
          function done() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          }
        });
      if (signal?.aborted) throw signal.reason ?? error;
    }
  }
}
