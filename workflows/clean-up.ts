import {
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  ParentClosePolicy,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { type VerificationInput } from '../domain/verification';
import { sessionCalls } from './activity-proxies';
import { describeFailure } from './bounded-step';
import { endAtService } from './end-at-service';
import { lookForOrphansSignal, orphanSweepWorkflowId, verificationEndedSignal } from './messages';
import { orphanSweep } from './orphan-sweep';
import { IdvStatus } from './search-attributes';
import { type RedactionArgs, redactionWorkflowId, sessionRedaction } from './session-redaction';
import { type SessionState } from './session-state';
import { recordVerificationEnd } from './verification-metrics';

/** Starts an abandoned child once; a second start of the same ID is fine. */
async function startOnce(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * Makes sure the profile's orphan sweep runs and looks soon: starts it (abandoned, so it
 * outlives this run), or signals the one running. One that ended between the two is started
 * again.
 */
export async function askForOrphanSweep(input: VerificationInput, state: SessionState): Promise<void> {
  const profileId = input.verificationProfileId;
  const workflowId = orphanSweepWorkflowId(profileId);
  for (let tries = 0; tries < 3; tries += 1) {
    try {
      await startChild(orphanSweep, {
        workflowId,
        args: [{ verificationProfileId: profileId }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      });
      break;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    try {
      await getExternalWorkflowHandle(workflowId).signal(lookForOrphansSignal);
      break;
    } catch (error) {
      if (isCancellation(error)) throw error;
    }
  }
  state.progress.orphanSweep = true;
}

/**
 * Closes the verification's creation: from now on, any session created for it (an attempt whose
 * answer is still to come) is an orphan. When one may exist, the profile's sweep is asked.
 */
async function closeCreation(input: VerificationInput, state: SessionState): Promise<void> {
  let sweepNeeded = true;
  try {
    ({ sweepNeeded } = await sessionCalls.closeCreation({
      verificationProfileId: input.verificationProfileId,
      ...(state.sessionId ? { keptSessionId: state.sessionId } : {}),
    }));
  } catch (error) {
    if (isCancellation(error)) throw error;
    // The store is away: the sweep is asked all the same, as an orphan may exist.
    log.warn('closing the creation failed', { reason: describeFailure(error) });
  }
  if (sweepNeeded) await askForOrphanSweep(input, state);
}

/** Tells the workflow named by `reportTo` how the verification ended; one that has gone is not told. */
async function report(input: VerificationInput, state: SessionState): Promise<void> {
  if (!input.reportTo) return;
  const { reference } = state.progress;
  const { status, errorCode, sessionId } = state.outcome();
  try {
    await getExternalWorkflowHandle(input.reportTo).signal(verificationEndedSignal, {
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
  state.closing = true;
  await endAtService(state, unfinished);
  upsertSearchAttributes([{ key: IdvStatus, value: state.progress.status }]);
  recordVerificationEnd(state.progress);
  const sessionId = state.sessionId;
  const redact = input.redactAfter !== 'never';
  // Without a session only the data key (sealing the start input's providerInput) is left to destroy.
  if (redact || (sessionId && !state.sessionDone)) {
    const args: RedactionArgs = {
      ...(sessionId ? { sessionId } : {}),
      dataKeyId: input.dataKeyId,
      delayMs: redact ? (input.redactAfter as number) : 0,
      ...(input.redactAfter === 0 && (state.identity || state.attachments) ? { awaitDelivery: true } : {}),
      ...(redact ? {} : { redact: false }),
      ...(state.sessionDone ? { sessionDone: true } : {}),
    };
    await startOnce(() =>
      startChild(sessionRedaction, {
        workflowId: redactionWorkflowId(args),
        args: [args],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      }),
    );
  }
  await closeCreation(input, state);
  await report(input, state);
  await condition(allHandlersFinished);
}
