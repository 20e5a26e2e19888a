import { proxyActivities, sleep } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';

const { redactAtService, deleteLocalSessionData } = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** What `sessionRedaction` reports. */
export interface RedactionReport {
  sessionId: string;
  redactedAt: string;
  /** False when the service no longer knew the session (already removed). */
  redactedAtService: boolean;
  attachmentsDeleted: number;
}

/**
 * Removes everything readable about the person of a session: waits `delayMs`, redacts at the
 * service, deletes stored attachments and destroys the results access key. Idempotent: a
 * second run, or a session the service already redacted, is fine. ID `idv-redact-<sessionId>`.
 */
export async function sessionRedaction(args: {
  sessionId: string;
  delayMs: number;
}): Promise<RedactionReport> {
  if (args.delayMs > 0) await sleep(args.delayMs);
  const { redacted } = await redactAtService(args.sessionId);
  const { attachmentsDeleted } = await deleteLocalSessionData(args.sessionId);
  return {
    sessionId: args.sessionId,
    redactedAt: new Date(Date.now()).toISOString(),
    redactedAtService: redacted,
    attachmentsDeleted,
  };
}
