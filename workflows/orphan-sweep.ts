import { proxyActivities, sleep } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import type { SweptOrphans } from '../activities/cleanup-activities';

// Heartbeats per session swept: a sweep lost with its worker is retried within 30 s.
const { sweepOrphans } = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** Input of {@link orphanSweep}. */
export interface OrphanSweepInput {
  verificationProfileId: string;
  /** The verification whose create attempts may have left orphans. */
  workflowId: string;
  /** The session the verification kept, if it got one. */
  keepSessionId?: string;
  /** Grace for concurrent creates of other verifications to claim their sessions. */
  delayMs: number;
}

/** The ID of a verification's orphan sweep: no reference can produce it (`/` is refused there). */
export function orphanSweepWorkflowId(verificationWorkflowId: string): string {
  return `${verificationWorkflowId}/orphan-sweep`;
}

/**
 * Sweeps the sessions a verification's unanswered create attempts may have created: each is
 * cancelled if live and redacted, whatever became of the verification (it is started abandoned,
 * so it outlives it). Idempotent.
 */
export async function orphanSweep(input: OrphanSweepInput): Promise<SweptOrphans> {
  if (input.delayMs > 0) await sleep(input.delayMs);
  return await sweepOrphans({
    verificationProfileId: input.verificationProfileId,
    workflowId: input.workflowId,
    ...(input.keepSessionId ? { keepSessionId: input.keepSessionId } : {}),
  });
}
