import {
  CancellationScope,
  condition,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import { markdownLines } from '../../common/user-metadata';
import { bothSettled, boundedSteps, type StepBound, type StepOutcome } from '../../common/bounded-step';
import type { VerificationActivities } from '../activities/index';
import { verificationVersioning } from '../shared/workflows';
import { setWorkflowOptions } from '@temporalio/workflow';

const boundedStep = boundedSteps<VerificationActivities>();
import { countGiveUp, gaveUp } from '../../common/maintenance';
import { resultsDeliveredSignal } from '../shared/messages';
import {
  lookAgainArgs,
  RECHECK_AFTER_MS,
  type RedactionArgs,
  type RedactionReport,
} from '../shared/workflows';
import { endingOnlyWhy } from '../shared/metadata';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The bound of each step. The service's steps (ending, redacting) keep trying for a week, at
 * least every 10 minutes while the service fails (an outage that ends is noticed soon), and
 * hourly after a refusal for good (a rotated API key); our own store's for a day.
 */
export const redactionBounds = {
  endSession: {
    what: 'ending the session',
    boundMs: 7 * DAY,
    gapMs: HOUR,
    maxRetryIntervalMs: 10 * MINUTE,
  },
  redactAtService: {
    what: 'redacting at the service',
    boundMs: 7 * DAY,
    gapMs: HOUR,
    maxRetryIntervalMs: 10 * MINUTE,
  },
  deleteStoredData: {
    what: 'deleting the stored data',
    boundMs: DAY,
    gapMs: HOUR,
    maxRetryIntervalMs: 5 * MINUTE,
  },
} satisfies Record<string, StepBound>;

/**
 * How long the redaction at the service waits for a live session to be ended first: a session
 * still running could gather data after it was redacted. Past this, it redacts all the same,
 * and again once the session is ended.
 */
export const ENDING_HEAD_START_MS = 10 * 60_000;

/**
 * The patch under which the redaction at the service is repeated whenever the ending settled
 * after it, not only when its own cancel ended a live session: the user may have finished, or
 * the service ended it, in between, and a session redacted while it ran may have gathered data.
 */
export const REDACT_AGAIN_AFTER_ANY_LATE_ENDING = 'redact-again-after-any-late-ending';

/**
 * The patch under which a redaction cancelled before its local erasure still erases at its due
 * time (the data key destroyed, stored data deleted); the cancel only cuts short the steps at the
 * service. A cancel (an operator's, a batch by query) skipped the erasure, and the person's data
 * stayed readable past its due time.
 */
export const ERASED_WHEN_CANCELLED = 'erased-when-cancelled';

/**
 * The patch under which the keys of the reference's other starts (a start taken over, whose key
 * may seal its input in another history) are destroyed at the due time, with the run's own
 * erasure. They went only with the record of the erasure, after the steps at the service: late,
 * and never when one of those gave up or a cancel came during them.
 */
export const OTHER_KEYS_WHEN_DUE = 'other-start-keys-destroyed-when-due';

/**
 * A step of the erasure that runs to its end once: run again (the erasure is run again out of a
 * cancel's reach when a cancel came during it), one that has settled answers what it settled, so
 * it is neither repeated nor its give-up listed twice.
 */
function settledOnce<T>(step: () => Promise<T>): () => Promise<T> {
  let settled: { value: T } | undefined;
  return async () => {
    if (settled) return settled.value;
    const value = await step();
    settled = { value };
    return value;
  };
}

/**
 * The patch under which a redaction to which the service said it does not know the session (its
 * ending or its redaction answered 404, and GetSession too) starts a run that looks again an hour
 * later ({@link RECHECK_AFTER_MS}). Asked only then, so other redactions record no marker.
 */
export const RECHECK_UNKNOWN_SESSION = 'recheck-session-the-service-did-not-know';

/**
 * The patch under which a look again that hears "unknown" once more looks again later still
 * ({@link RECHECK_AGAIN_MS}): a gateway's 404s may outlast the hour. Asked only then.
 */
export const RECHECK_UNKNOWN_SESSION_AGAIN = 'recheck-session-again-while-unknown';

/**
 * After the first look again ({@link RECHECK_AFTER_MS} after the redaction), how long each later
 * one waits while the service still says it does not know the session: looks at about 1 h, 7 h
 * and 31 h, then none (a session the service removed costs three looks of 1 to 3 calls).
 */
export const RECHECK_AGAIN_MS = [6 * HOUR, DAY];

/**
 * Starts the run that looks at the session again {@link RECHECK_AFTER_MS} from now, with a start
 * delay (nothing of this run waits for it, and the build current then runs it); one started
 * already stays. Its give-up is said and counted, not the caller's failure: what it did stands.
 */
async function lookAgainLater(sessionId: string, redact: boolean): Promise<void> {
  const scheduled = await boundedStep(redactionBounds.deleteStoredData, (calls) =>
    calls.scheduleRedaction({ args: lookAgainArgs(sessionId, redact), delayMs: RECHECK_AFTER_MS }),
  );
  if (!('value' in scheduled)) {
    const step = 'scheduling a look again at the session';
    log.error(`gave up ${step}`, { sessionId, reason: scheduled.gaveUp });
    countGiveUp({ kind: 'redaction', step });
  }
}

/** What {@link lookAgain} uses of its redaction run. */
interface LookAgainRun {
  settle: <T>(step: string, outcome: StepOutcome<T>) => T | undefined;
  doing: (what: string) => void;
  /** No step has given up so far. */
  clean: () => boolean;
  finish: <T extends RedactionReport>(report: T) => Promise<T>;
}

/**
 * A look again at a session the service said it did not know: after `args.delayMs`, ends it if
 * it is there (and redacts it, unless `args.redact` is false); while the service still says it
 * does not know it, again {@link RECHECK_AGAIN_MS} later.
 */
async function lookAgain(
  sessionId: string,
  args: RedactionArgs,
  run: LookAgainRun,
): Promise<RedactionReport> {
  const { settle, doing, finish } = run;
  const redact = args.redact !== false;
  for (let look = 0; ; look += 1) {
    const waitMs = look === 0 ? args.delayMs : (RECHECK_AGAIN_MS[look - 1] as number);
    doing(
      `looking again at ${new Date(Date.now() + waitMs).toISOString()}: the service said it did not know the session`,
    );
    if (waitMs > 0) await sleep(waitMs, { summary: 'until the session is looked at again' });
    doing(
      redact ? 'ending the session if it is there, then redacting it' : 'ending the session if it is there',
    );
    const ended = settle(
      'ending the session',
      await boundedStep(redactionBounds.endSession, (calls) => calls.endSessionIfLive(sessionId)),
    );
    const redacted = redact
      ? settle(
          'redacting at the service',
          await boundedStep(redactionBounds.redactAtService, (calls) => calls.redactAtService(sessionId)),
        )?.redacted
      : undefined;
    const stillUnknown = ended?.gone === true || redacted === false;
    if (
      stillUnknown &&
      run.clean() &&
      look < RECHECK_AGAIN_MS.length &&
      patched(RECHECK_UNKNOWN_SESSION_AGAIN)
    )
      continue;
    if (!redact)
      return await finish({ sessionId, redactedAt: '', redactedAtService: false, attachmentsDeleted: 0 });
    return await finish({
      sessionId,
      redactedAt: new Date(Date.now()).toISOString(),
      redactedAtService: redacted ?? false,
      attachmentsDeleted: 0,
    });
  }
}

/** How long results due "right after delivery" wait for the caller to receive them. */
export const DELIVERY_GRACE_MS = HOUR;

/**
 * Removes everything readable about the person of a verification, in independent bounded steps:
 * ends the session at the service unless it is known to be done (beside the wait), and at the
 * due time deletes stored attachments and the results access key and destroys the data key
 * (nothing stays readable in our stores or any history, whatever the service answers), then
 * redacts at the service, whatever the ending does (it waits a little for a live session to
 * end first, and redacts again if the ending came after). A step that runs out of its bound
 * does not stop the others; the workflow then fails visibly (`MaintenanceGaveUp`). Idempotent.
 * ID from {@link redactionWorkflowId}.
 */
export async function sessionRedaction(args: RedactionArgs): Promise<RedactionReport> {
  const { sessionId, dataKeyId } = args;
  let delivered = false;
  setHandler(resultsDeliveredSignal, () => {
    delivered = true;
  });
  const problems: Array<{ step: string; reason: string }> = [];
  const settle = <T>(step: string, outcome: StepOutcome<T>): T | undefined => {
    if ('value' in outcome) return outcome.value;
    problems.push({ step, reason: outcome.gaveUp });
    return undefined;
  };
  const doing = (what: string) => setCurrentDetails(markdownLines([`**${what}**`, ...problemLines()]));
  /** The cancellation that came before the local erasure: rethrown once it is done. */
  let cancelled: unknown;
  /**
   * Waits until `dueAtMs` (and for the delivery, `awaitDelivery`), then runs `erase`. A cancel
   * meanwhile does not skip it: it is waited for and run all the same, out of the cancel's reach,
   * without the delivery's grace (see {@link ERASED_WHEN_CANCELLED}).
   */
  const eraseWhenDue = async <T>(
    dueAtMs: number,
    awaitDelivery: boolean,
    erase: () => Promise<T>,
  ): Promise<T> => {
    try {
      if (dueAtMs > Date.now()) await sleep(dueAtMs - Date.now(), { summary: 'until the redaction is due' });
      if (awaitDelivery) {
        doing(
          `waiting for the results to be delivered, until ${new Date(Date.now() + DELIVERY_GRACE_MS).toISOString()}`,
        );
        await condition(() => delivered, DELIVERY_GRACE_MS, { summary: 'until the results are delivered' });
      }
      return await erase();
    } catch (error) {
      if (!isCancellation(error) || !patched(ERASED_WHEN_CANCELLED)) throw error;
      cancelled = error;
      // A cancel starts a redaction waiting for its start delay at once: it is due later still.
      const dueMs = Math.max(dueAtMs, args.dueAt === undefined ? 0 : Date.parse(args.dueAt));
      doing(`cancelled: erasing all the same at ${new Date(Math.max(dueMs, Date.now())).toISOString()}`);
      return await CancellationScope.nonCancellable(async () => {
        if (dueMs > Date.now())
          await sleep(dueMs - Date.now(), { summary: 'until the redaction is due (cancelled, it erases)' });
        return await erase();
      });
    }
  };
  /** At the due time, beside this run's own erasure: the keys of the reference's other starts. */
  const destroyOtherKeys = settledOnce(async (): Promise<void> => {
    if (args.reference === undefined || !patched(OTHER_KEYS_WHEN_DUE)) return;
    const reference = args.reference;
    settle(
      'destroying the keys of its other starts',
      await boundedStep(redactionBounds.deleteStoredData, (calls) =>
        calls.destroyRecordKeys(recordOf(reference)),
      ),
    );
  });
  /** The record of this run's start, as the record's steps take it (its key and session, if any). */
  const recordOf = (reference: string) => ({
    reference,
    ...(dataKeyId === undefined ? {} : { dataKeyId }),
    ...(sessionId === undefined ? {} : { sessionId }),
  });
  const problemLines = () => problems.map((problem) => `Gave up ${problem.step}`);
  const finish = async <T extends RedactionReport>(report: T): Promise<T> => {
    if (problems.length === 0) {
      if (args.reference && args.redact !== false)
        settle(
          'recording the erasure',
          await boundedStep(redactionBounds.deleteStoredData, (calls) =>
            calls.recordRedaction({ ...recordOf(args.reference as string), redactedAt: report.redactedAt }),
          ),
        );
      if (problems.length === 0) {
        setCurrentDetails(reportDetails(report, args));
        return report;
      }
    }
    throw givenUp();
  };
  const givenUp = () => {
    doing('gave up');
    return gaveUp({
      kind: 'redaction',
      step: problems.map((problem) => problem.step).join(' and '),
      reason: problems.map((problem) => problem.reason).join('; '),
      next: sessionId
        ? `the service may still hold the session ${sessionId} live or with data: once it answers again, run \`idv redact\` for its verification`
        : 'check the store, then run `idv redact` for its verification',
    });
  };
  /**
   * After the erasure a cancel did not skip: the keys of the reference's other starts go too
   * (out of the cancel's reach; no erasure is recorded, the steps at the service were cut
   * short); then the erasure's give-up is what to see, else the cancel.
   */
  const cutShort = async (): Promise<never> => {
    if (problems.length === 0 && args.reference !== undefined)
      await CancellationScope.nonCancellable(async () =>
        settle(
          'destroying the keys of its other starts',
          await boundedStep(redactionBounds.deleteStoredData, (calls) =>
            calls.destroyRecordKeys(recordOf(args.reference as string)),
          ),
        ),
      );
    throw problems.length > 0 ? givenUp() : cancelled;
  };

  if (args.recheck === true && sessionId !== undefined)
    return await lookAgain(sessionId, args, { settle, doing, clean: () => problems.length === 0, finish });
  if (sessionId === undefined) {
    doing(`due ${new Date(Date.now() + args.delayMs).toISOString()}: destroying the data key`);
    const destroyOwnKey = settledOnce(async () =>
      dataKeyId === undefined
        ? false
        : settle(
            'destroying the data key',
            await boundedStep(redactionBounds.deleteStoredData, (calls) => calls.destroyDataKey(dataKeyId)),
          )?.destroyed,
    );
    const destroyed = await eraseWhenDue(
      Date.now() + args.delayMs,
      false,
      async () => (await bothSettled(destroyOwnKey(), destroyOtherKeys()))[0],
    );
    if (cancelled !== undefined) await cutShort();
    return await finish({
      redactedAt: new Date(Date.now()).toISOString(),
      redactedAtService: false,
      attachmentsDeleted: 0,
      dataKeyDestroyed: destroyed ?? false,
    });
  }

  const dueAtMs = Date.now() + args.delayMs;
  // The ending runs beside the wait and never rejects (a cancellation is kept, rethrown where
  // awaited), so a workflow cancelled meanwhile leaves no unhandled rejection.
  const ending = {
    done: args.sessionDone === true,
    endedLive: false,
    /** The service said it does not know the session. */
    gone: false,
    /** It ended (or found ended) the session, rather than giving up. */
    settled: false,
    cancelled: undefined as unknown,
  };
  const endingRun = ending.done
    ? Promise.resolve()
    : boundedStep(redactionBounds.endSession, (calls) => calls.endSessionIfLive(sessionId)).then(
        (outcome) => {
          const ended = settle('ending the session', outcome);
          ending.endedLive = ended?.cancelled ?? false;
          ending.gone = ended?.gone === true;
          ending.settled = ended !== undefined;
          ending.done = true;
        },
        (error: unknown) => {
          ending.cancelled = error;
          ending.done = true;
        },
      );
  const endingSettled = async () => {
    await endingRun;
    if (isCancellation(ending.cancelled)) throw ending.cancelled;
  };

  if (args.redact === false) {
    doing('ending the session');
    await endingSettled();
    if (ending.gone && patched(RECHECK_UNKNOWN_SESSION)) await lookAgainLater(sessionId, false);
    return await finish({ sessionId, redactedAt: '', redactedAtService: false, attachmentsDeleted: 0 });
  }
  doing(`due ${new Date(dueAtMs).toISOString()}${ending.done ? '' : '; ending the session meanwhile'}`);
  const deleteStoredData = settledOnce(async () =>
    settle(
      'deleting the stored data',
      await boundedStep(redactionBounds.deleteStoredData, (calls) =>
        calls.deleteLocalSessionData(sessionId, dataKeyId),
      ),
    ),
  );
  const local = await eraseWhenDue(dueAtMs, args.awaitDelivery === true, async () => {
    doing('deleting the stored data and the data key, then redacting at the service');
    return (await bothSettled(deleteStoredData(), destroyOtherKeys()))[0];
  });
  // Cancelled: the steps at the service are cut short, the ending's with them.
  if (cancelled !== undefined) await cutShort();
  await condition(() => ending.done, ENDING_HEAD_START_MS, { summary: 'until the session is ended first' });
  const endedBeforeRedaction = ending.done;
  let redacted = settle(
    'redacting at the service',
    await boundedStep(redactionBounds.redactAtService, (calls) => calls.redactAtService(sessionId)),
  )?.redacted;
  await endingSettled();
  // Ended only after the redaction, by whatever: what it gathered meanwhile goes too. Not when
  // either step gave up (the workflow fails visibly; another week of tries would only delay it).
  // (The patch is asked only where it decides, so other redactions record no marker.)
  const redactAgain = () =>
    ending.endedLive ||
    (ending.settled && redacted !== undefined && patched(REDACT_AGAIN_AFTER_ANY_LATE_ENDING));
  if (!endedBeforeRedaction && redactAgain())
    redacted =
      settle(
        'redacting at the service',
        await boundedStep(redactionBounds.redactAtService, (calls) => calls.redactAtService(sessionId)),
      )?.redacted ?? redacted;
  if ((redacted === false || ending.gone) && patched(RECHECK_UNKNOWN_SESSION))
    await lookAgainLater(sessionId, true);
  return await finish({
    sessionId,
    redactedAt: new Date(Date.now()).toISOString(),
    redactedAtService: redacted ?? false,
    attachmentsDeleted: local?.attachmentsDeleted ?? 0,
    dataKeyDestroyed: local?.dataKeyDestroyed ?? false,
  });
}

/** The current details of a redaction that ran every step. */
function reportDetails(report: RedactionReport, args: RedactionArgs): string {
  if (!report.redactedAt)
    return markdownLines([
      `**done**: the session is ended; this run erases nothing (${endingOnlyWhy(args)})`,
    ]);
  return markdownLines([
    `**redacted** at ${report.redactedAt}`,
    `At the service: ${report.redactedAtService ? 'redacted' : 'not known there any more'}`,
    `Attachments deleted: ${report.attachmentsDeleted}; data key destroyed: ${report.dataKeyDestroyed === true ? 'yes' : 'no'}`,
  ]);
}

setWorkflowOptions({ versioningBehavior: verificationVersioning.redaction }, sessionRedaction);
