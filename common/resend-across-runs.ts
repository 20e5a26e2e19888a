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

/**
 * Sends an update again when it was refused (failure type `movingOnType`) because its workflow
 * was moving to its next run, a moment normally: the next run takes it. Bounded: the last
 * refusal is thrown.
 */
export async function sentAcrossRuns<T>(send: () => Promise<T>, movingOnType: string): Promise<T> {
  for (const delayMs of MOVING_ON_RESEND_MS) {
    try {
      return await send();
    } catch (error) {
      if (!refusedAs(error, movingOnType)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
  return await send();
}
