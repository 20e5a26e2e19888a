import {
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  ParentClosePolicy,
  patched,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { VerificationInput } from '../domain/verification';

import {
  CLEAN_UP_LOCALLY,
  CLOSE_BY_A_WORKFLOW_OF_ITS_OWN,
  CLOSE_WHILE_REDACTION_STARTS,
  creationCalls,
  GONE_SESSION_ENDED_BY_REDACTION,
  localCreationCalls,
} from './activity-proxies';
import { bothSettled, describeFailure } from '../../common/bounded-step';
import { endAtService } from './end-at-service';
import {
  type CreationToClose,
  type LookForOrphans,
  verificationEndedSignal,
  type EndingToRecord,
  type VerificationEnding,
} from '../shared/messages';
import { askForOrphanSweep, startCreationClose, startOnce } from './orphan-hand-offs';
import { IdvStatus } from '../../common/search-attributes';
import { sessionRedaction } from './session-redaction';
import { type RedactionArgs } from '../shared/workflows';
import { redactionWorkflowId } from '../shared/ids';
import { isReportableWorkflowId } from '../../common/workflow-ids';
import { redactionMetadata } from '../shared/metadata';
import { type RedactionPlan, type SessionState } from './session-state';
import { recordVerificationEnd } from './verification-metrics';

/** How the clean-up calls its own activities (see `CLEAN_UP_LOCALLY`). */
type CreationCalls = typeof creationCalls;

/** Asks the profile's orphan sweep to look (see `askForOrphanSweep`); the verification tells it did. */
export async function askSweepFor(
  input: VerificationInput,
  state: SessionState,
  close?: LookForOrphans['close'],
): Promise<void> {
  if (await askForOrphanSweep(input.verificationProfileId, close)) state.orphanSweepAsked();
}

/**
 * Closes the verification's creation: from now on, any session created for it (an attempt whose
 * answer is still to come) is an orphan. When one may exist, the profile's sweep is asked; when
 * the store is away, a workflow of its own is handed the close (`creationClose`).
 */
async function closeCreation(
  input: VerificationInput,
  state: SessionState,
  endedAtMs: number,
  calls: CreationCalls = creationCalls,
): Promise<void> {
  const ending = endingOf(input, state, endedAtMs);
  const close: CreationToClose = {
    workflowId: workflowInfo().workflowId,
    ...(state.sessionId ? { keptSessionId: state.sessionId } : {}),
    ending,
  };
  try {
    const { sweepNeeded } = await calls.closeCreation({
      verificationProfileId: input.verificationProfileId,
      ...close,
    });
    if (sweepNeeded) await askSweepFor(input, state);
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (patched(CLOSE_BY_A_WORKFLOW_OF_ITS_OWN)) {
      log.warn('closing the creation failed; a workflow of its own closes it', {
        reason: describeFailure(error),
      });
      state.creationHandedOff(await startCreationClose(input.verificationProfileId, close));
    } else {
      log.warn('closing the creation failed; the orphan sweep closes it', { reason: describeFailure(error) });
      await askSweepFor(input, state, close);
    }
  }
}

/** How the verification ended, for its record: no personal data. */
function endingOf(input: VerificationInput, state: SessionState, endedAtMs: number): EndingToRecord {
  const { status, errorCode, sessionId } = state.outcome();
  return {
    reference: input.reference,
    verificationProfileId: input.verificationProfileId,
    provider: input.provider,
    startedAt: state.progress.startedAt,
    status,
    dataKeyId: input.dataKeyId,
    endedAt: new Date(endedAtMs).toISOString(),
    ...(errorCode ? { errorCode } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(input.redactAfter === 'never'
      ? {}
      : { redactionDueAt: redactionDueAt(input.redactAfter, endedAtMs) }),
  };
}

/** When the person's data is due to be erased: `redactAfter` after the ending. */
function redactionDueAt(redactAfter: number, endedAtMs: number): string {
  return new Date(endedAtMs + redactAfter).toISOString();
}

/** What the verification tells of its redaction once it has started (see `startRedaction`). */
function redactionPlan(
  input: VerificationInput,
  redaction: RedactionArgs | undefined,
  endedAtMs: number,
): RedactionPlan {
  if (input.redactAfter === 'never') return { never: true };
  const by = redaction && redaction.redact !== false ? { workflowId: redactionWorkflowId(redaction) } : {};
  return redaction?.awaitDelivery
    ? { afterDelivery: true, ...by }
    : { dueAt: redactionDueAt(input.redactAfter, endedAtMs), ...by };
}

/**
 * Tells the workflow named by `reportTo` how the verification ended; one that has gone is not
 * told, nor one no workflow ID can name (`reportTo` may be of an input the workflow refused).
 */
export async function reportEnding(reportTo: unknown, ending: VerificationEnding): Promise<void> {
  if (!isReportableWorkflowId(reportTo)) return;
  const { reference, status, errorCode, sessionId } = ending;
  try {
    await getExternalWorkflowHandle(reportTo).signal(verificationEndedSignal, {
      reference,
      status,
      ...(errorCode ? { errorCode } : {}),
      ...(sessionId ? { sessionId } : {}),
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('the workflow to report to is gone', { reason: describeFailure(error) });
  }
}

/** The ending `reportTo` is told: the outcome without the person's data. */
function reported(state: SessionState): VerificationEnding {
  const { status, errorCode, sessionId } = state.outcome();
  return { reference: state.progress.reference, status, errorCode, sessionId };
}

/** A redaction started now, as a child that outlives this run. */
async function startRedactionNow(args: RedactionArgs): Promise<void> {
  await startOnce(() =>
    startChild(sessionRedaction, {
      workflowId: redactionWorkflowId(args),
      args: [args],
      ...redactionMetadata(args),
      parentClosePolicy: ParentClosePolicy.ABANDON,
    }),
  );
}

/**
 * Starts the redaction. One due later is started with a start delay (nothing sleeps until it is
 * due, and the build current then runs it); a session not known to be done is ended now by an
 * ending of its own. Should the delayed start fail, the redaction sleeps in a child instead.
 */
async function startRedaction(
  args: RedactionArgs,
  endedAtMs?: number,
  calls: CreationCalls = creationCalls,
): Promise<void> {
  if (args.delayMs === 0 || args.redact === false) return await startRedactionNow(args);
  if (args.sessionId && !args.sessionDone)
    await startRedactionNow({ sessionId: args.sessionId, delayMs: 0, redact: false });
  // Given the ending's time (the record's), the redaction is due `delayMs` after it, however late
  // the start comes; otherwise `delayMs` after the start.
  const dueAt = endedAtMs === undefined ? undefined : redactionDueAt(args.delayMs, endedAtMs);
  try {
    await calls.scheduleRedaction({
      args: { ...args, delayMs: 0, dueAt: dueAt ?? new Date(Date.now() + args.delayMs).toISOString() },
      delayMs: args.delayMs,
      ...(dueAt === undefined ? {} : { dueAt }),
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('starting the redaction with a delay failed; it waits in a child instead', {
      reason: describeFailure(error),
    });
    await startRedactionNow(
      dueAt === undefined ? args : { ...args, delayMs: Math.max(0, Date.parse(dueAt) - Date.now()) },
    );
  }
}

/**
 * Runs on every way out (outcome, refusal, defect, Temporal cancellation; in a non-cancellable
 * scope): ends a session still live at the service, records the final status, closes creation
 * (the profile's sweep asked when an orphan may exist), starts the redaction (an abandoned
 * child, so it outlives this run; also, with `redactAfter: 'never'`, to end a session not known
 * to be done), tells `reportTo`, and lets every handler finish.
 */
export async function cleanUp(
  input: VerificationInput,
  state: SessionState,
  unfinished: 'cancelled' | 'failed',
): Promise<void> {
  state.beginClosing();
  await endAtService(state, unfinished);
  state.closingWithoutFetch(input.results !== 'none', Date.now());
  upsertSearchAttributes([{ key: IdvStatus, value: state.progress.status }]);
  recordVerificationEnd(state.progress);
  const redaction = redactionArgs(input, state);
  const endedAtMs = Date.now();
  // Told as soon as the redaction has started (a start that fails throws instead).
  const announce = () => state.redactionScheduled(redactionPlan(input, redaction, endedAtMs));
  if (patched(CLOSE_WHILE_REDACTION_STARTS)) {
    const calls = patched(CLEAN_UP_LOCALLY) ? localCreationCalls : creationCalls;
    // Independent steps; the redaction is due from the ending the record says.
    await bothSettled(
      (redaction ? startRedaction(redaction, endedAtMs, calls) : Promise.resolve()).then(announce),
      closeCreation(input, state, endedAtMs, calls),
    );
  } else {
    if (redaction) await startRedaction(redaction);
    announce();
    await closeCreation(input, state, endedAtMs);
  }
  await reportEnding(input.reportTo, reported(state));
  await condition(allHandlersFinished);
  state.closed();
}

/**
 * The redaction to start: the person's data when it is ever redacted, and a session not known
 * to be done (ended by a redaction of its own); without a session only the data key (sealing
 * the start input's providerInput) is left to destroy. None with `redactAfter: 'never'` and
 * nothing live.
 */
function redactionArgs(input: VerificationInput, state: SessionState): RedactionArgs | undefined {
  const sessionId = state.sessionId;
  const redact = input.redactAfter !== 'never';
  // A session taken for gone on 404s is still asked to end by the redaction: a gateway's 404s
  // prove nothing, and a live session redacted without an ending may gather data after.
  const sessionDone =
    state.sessionDone && !(state.sessionTakenForGone && patched(GONE_SESSION_ENDED_BY_REDACTION));
  if (redact || (sessionId && !sessionDone)) {
    return {
      reference: input.reference,
      ...(sessionId ? { sessionId } : {}),
      dataKeyId: input.dataKeyId,
      delayMs: redact ? (input.redactAfter as number) : 0,
      ...(input.redactAfter === 0 && (state.identity || state.attachments) ? { awaitDelivery: true } : {}),
      ...(redact ? {} : { redact: false }),
      ...(sessionDone ? { sessionDone: true } : {}),
    };
  }
  return undefined;
}
