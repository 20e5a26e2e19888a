import { proxyActivities } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';

// Temporal retries; activities only classify. Non-retryable types come from activities/failures.
const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' };

/** Short API calls. */
export const api = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '1 minute',
  retry,
});

/** Result fetching: may stream several attachments. */
export const results = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  retry,
});

/** The long poll: bounded by the verification deadline, kept alive by heartbeats. */
export function poller(options: { deadlineMs: number; maxIntervalMs: number }) {
  return proxyActivities<VerificationActivities>({
    startToCloseTimeout: options.deadlineMs + 60_000,
    // Heartbeats come every poll (<= maxIntervalMs); a dead worker is noticed within two intervals.
    heartbeatTimeout: options.maxIntervalMs * 2 + 5_000,
    retry,
  });
}
