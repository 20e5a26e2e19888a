import {
  condition,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import { activityFailureType } from './failure-types';
import { resultsDeliveredSignal } from './messages';
import { patches } from './patches';

const { endSessionIfLive, redactAtService, deleteLocalSessionData, destroyDataKey } =
  proxyActivities<VerificationActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  });

/** What `sessionRedaction` reports. */
export interface RedactionReport {
  /** Absent when the verification had no session (only its data key was destroyed). */
  sessionId?: string;
  redactedAt: string;
  /** False when the service no longer knew the session (already removed). */
  redactedAtService: boolean;
  attachmentsDeleted: number;
  /** True when the verification's data key was destroyed (every sealed copy of its data unreadable). */
  dataKeyDestroyed?: boolean;
}

/** How `sessionRedaction` runs. */
export interface RedactionArgs {
  /** Absent for a verification that never got a session: only its data key is destroyed. */
  sessionId?: string;
  /** The verification's data key, destroyed with the rest (absent for runs from before data keys). */
  dataKeyId?: string;
  delayMs: number;
  /**
   * The results are due "right after delivery" (`redactAfter: 0` with results fetched): wait for
   * the caller's `resultsDelivered` signal, at most {@link DELIVERY_GRACE_MS}, before deleting.
   */
  awaitDelivery?: boolean;
  /** False: only end the session (the verification keeps its data, `redactAfter: 'never'`). @default true */
  redact?: boolean;
}

/** How long results due "right after delivery" wait for the caller to receive them. */
export const DELIVERY_GRACE_MS = 60 * 60 * 1000;

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

/** The ID of a redaction: by session, or by data key for a verification without a session. */
export function redactionWorkflowId(args: {
  sessionId?: string;
  dataKeyId?: string;
  redact?: boolean;
}): string {
  if (args.sessionId) return `idv-${args.redact === false ? 'end' : 'redact'}-${args.sessionId}`;
  return `idv-redact-key-${args.dataKeyId ?? 'none'}`;
}

/**
 * Removes everything readable about the person of a verification: ends its session at the
 * service if still live (a cancel the verification could not make; a no-op otherwise), and
 * meanwhile, once `delayMs` after the start is due, deletes stored attachments and the results
 * access key and destroys the data key (whatever the service answers: nothing stays readable in
 * our stores or in any history), then redacts at the service, insisting until it accepts.
 * Idempotent: a second run, or a session the service already redacted, is fine.
 * ID from {@link redactionWorkflowId}.
 */
export async function sessionRedaction(args: RedactionArgs): Promise<RedactionReport> {
  const { sessionId, dataKeyId } = args;
  let delivered = false;
  setHandler(resultsDeliveredSignal, () => {
    delivered = true;
  });
  if (sessionId === undefined) {
    if (args.delayMs > 0) await sleep(args.delayMs);
    const destroyed = dataKeyId === undefined ? false : (await destroyDataKey(dataKeyId)).destroyed;
    return {
      redactedAt: new Date(Date.now()).toISOString(),
      redactedAtService: false,
      attachmentsDeleted: 0,
      dataKeyDestroyed: destroyed,
    };
  }
  // Runs started before this order existed redacted first, then deleted; they replay that way.
  if (!patched(patches.endDeleteThenRedact)) {
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
  let endCancelled: Error | undefined;
  // Ending runs beside the wait: whatever the service answers (for up to a week), the local data
  // and the data key go at their due time. It never rejects (a cancellation is kept and rethrown
  // where it is awaited), so a workflow cancelled meanwhile leaves no unhandled rejection.
  const ending = persist('ending the session', () => endSessionIfLive(sessionId)).then(
    () => undefined,
    (error: unknown) => {
      if (isCancellation(error)) endCancelled = error as Error;
      // The redaction still happens; the failure (an activity's, always an Error) is reported afterwards.
      else endFailure = error as Error;
    },
  );
  const ended = async () => {
    await ending;
    if (endCancelled !== undefined) throw endCancelled;
  };
  // Runs started before that waited for the ending first; they replay that way.
  if (!patched(patches.shredAtDueTime)) await ended();
  if (args.redact === false) {
    await ended();
    if (endFailure !== undefined) throw endFailure;
    return { sessionId, redactedAt: '', redactedAtService: false, attachmentsDeleted: 0 };
  }
  if (dueAtMs > Date.now()) await sleep(dueAtMs - Date.now());
  if (args.awaitDelivery) await condition(() => delivered, DELIVERY_GRACE_MS);
  const { attachmentsDeleted, dataKeyDestroyed } = await deleteLocalSessionData(sessionId, dataKeyId);
  await ended();
  const { redacted } = await persist('redacting the session', () => redactAtService(sessionId));
  if (endFailure !== undefined) throw endFailure;
  return {
    sessionId,
    redactedAt: new Date(Date.now()).toISOString(),
    redactedAtService: redacted,
    attachmentsDeleted,
    dataKeyDestroyed,
  };
}
