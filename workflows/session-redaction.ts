import { isCancellation, log, patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import { activityFailureType } from './failure-types';

const { endSessionIfLive, redactAtService, deleteLocalSessionData } = proxyActivities<VerificationActivities>(
  {
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  },
);

/** What `sessionRedaction` reports. */
export interface RedactionReport {
  sessionId: string;
  redactedAt: string;
  /** False when the service no longer knew the session (already removed). */
  redactedAtService: boolean;
  attachmentsDeleted: number;
}

/** How `sessionRedaction` runs. */
export interface RedactionArgs {
  sessionId: string;
  delayMs: number;
  /** False: only end the session (the verification keeps its data, `redactAfter: 'never'`). @default true */
  redact?: boolean;
}

/** Service calls refused for good (an API key rotated meanwhile…) are tried again this often… */
const REFUSED_RETRY_MS = 60 * 60 * 1000;
/** …this many times (a week), then the workflow fails visibly. History stays bounded. */
const REFUSED_RETRIES = 168;

/** Runs a service call until it succeeds: retryable failures by the activity, refusals hourly. */
async function persist<T>(what: string, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (isCancellation(error) || attempt > REFUSED_RETRIES) throw error;
      log.warn(`${what} refused; trying again in an hour`, {
        failureType: activityFailureType(error),
        attempt,
      });
      await sleep(REFUSED_RETRY_MS);
    }
  }
}

/**
 * Removes everything readable about the person of a session: ends it at the service if still live
 * (a cancel the verification could not make; a no-op otherwise), deletes stored attachments and
 * the results access key once `delayMs` after the start is due (first: nothing stays on our disks
 * whatever the service answers), then redacts at the service, insisting until it accepts.
 * Idempotent: a second run, or a session the service already redacted, is fine.
 * ID `idv-redact-<sessionId>` (`idv-end-<sessionId>` when it only ends the session).
 */
export async function sessionRedaction(args: RedactionArgs): Promise<RedactionReport> {
  const { sessionId } = args;
  // Runs started before this order existed redacted first, then deleted; they replay that way.
  if (!patched('end-delete-then-redact')) {
    if (args.delayMs > 0) await sleep(args.delayMs);
    const { redacted } = await redactAtService(sessionId);
    const { attachmentsDeleted } = await deleteLocalSessionData(sessionId);
    return {
      sessionId,
      redactedAt: new Date(Date.now()).toISOString(),
      redactedAtService: redacted,
      attachmentsDeleted,
    };
  }
  const dueAtMs = Date.now() + args.delayMs;
  let endFailure: Error | undefined;
  try {
    await persist('ending the session', () => endSessionIfLive(sessionId));
  } catch (error) {
    if (isCancellation(error)) throw error;
    // The redaction still happens; the failure (an activity's, always an Error) is reported afterwards.
    endFailure = error as Error;
  }
  if (args.redact === false) {
    if (endFailure !== undefined) throw endFailure;
    return { sessionId, redactedAt: '', redactedAtService: false, attachmentsDeleted: 0 };
  }
  if (dueAtMs > Date.now()) await sleep(dueAtMs - Date.now());
  const { attachmentsDeleted } = await deleteLocalSessionData(sessionId);
  const { redacted } = await persist('redacting the session', () => redactAtService(sessionId));
  if (endFailure !== undefined) throw endFailure;
  return {
    sessionId,
    redactedAt: new Date(Date.now()).toISOString(),
    redactedAtService: redacted,
    attachmentsDeleted,
  };
}
