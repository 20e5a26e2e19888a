import {
  allHandlersFinished,
  isCancellation,
  log,
  condition,
  ParentClosePolicy,
  patched,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { type VerificationInput } from '../domain/verification';
import { endAtService } from './end-at-service';
import { orphanSweep, orphanSweepWorkflowId } from './orphan-sweep';
import { IdvStatus } from './search-attributes';
import { recordVerificationEnd } from './verification-metrics';
import { type RedactionArgs, redactionWorkflowId, sessionRedaction } from './session-redaction';
import { sessionCalls } from './activity-proxies';
import { patches } from './patches';
import { activityFailureType } from './failure-types';
import { type SessionState } from './session-state';

const DEFAULT_ORPHAN_SWEEP_DELAY_MS = 60_000;

/** Starts an abandoned child once; a second start of the same ID is fine. */
async function startOnce(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Starts the orphan sweep if a create attempt may have left one (see `SweepNeed`). */
export async function scheduleOrphanSweep(input: VerificationInput, state: SessionState): Promise<void> {
  if (state.sweep !== 'maybe') return;
  const workflowId = workflowInfo().workflowId;
  await startOnce(() =>
    startChild(orphanSweep, {
      workflowId: orphanSweepWorkflowId(workflowId),
      args: [
        {
          verificationProfileId: input.verificationProfileId,
          workflowId,
          ...(state.sessionId ? { keepSessionId: state.sessionId } : {}),
          delayMs: input.orphanSweepDelayMs ?? DEFAULT_ORPHAN_SWEEP_DELAY_MS,
        },
      ],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    }),
  );
  state.sweep = 'scheduled';
  state.progress.orphanSweep = true;
}

/**
 * The verification's create attempts were all settled by an answer: no orphan can be left, so
 * their records go. Best effort (a record left behind names no person).
 */
async function forgetCreateAttempts(): Promise<void> {
  try {
    await sessionCalls.forgetCreateAttempts(workflowInfo().workflowId);
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('forgetting the create attempts failed', { failureType: activityFailureType(error) });
  }
}

/**
 * Runs on every way out (outcome, failure, Temporal cancellation; in a non-cancellable scope
 * for the latter): ends a session still live at the service, records the final status, starts
 * the redaction and the orphan sweep (both abandoned children, so they outlive this run), and
 * lets every handler finish.
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
  const keyed = patched(patches.dataKeys) && input.dataKeyId !== undefined;
  // Without a session only the data key (sealing the start input's providerInput) is left to destroy.
  if ((redact && (sessionId || keyed)) || (sessionId && state.cancelFailed)) {
    const args: RedactionArgs = {
      ...(sessionId ? { sessionId } : {}),
      ...(input.dataKeyId === undefined ? {} : { dataKeyId: input.dataKeyId }),
      delayMs: redact ? (input.redactAfter as number) : 0,
      ...(input.redactAfter === 0 && (state.identity || state.attachments) ? { awaitDelivery: true } : {}),
      ...(redact ? {} : { redact: false }),
    };
    await startOnce(() =>
      startChild(sessionRedaction, {
        workflowId: redactionWorkflowId(args),
        args: [args],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      }),
    );
  }
  await scheduleOrphanSweep(input, state);
  if (keyed && state.sweep === 'none' && sessionId) await forgetCreateAttempts();
  await condition(allHandlersFinished);
}
