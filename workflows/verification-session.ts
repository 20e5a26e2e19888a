import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  log,
  patched,
  TemporalFailure,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { verificationInputProblems } from '../domain/verification-limits';
import { type SealedVerificationOutcome, type VerificationInput } from '../domain/verification';
import { results } from './activity-proxies';
import { awaitOutcome } from './await-outcome';
import { cleanUp, scheduleOrphanSweep } from './clean-up';
import { createSession } from './create-session';
import { activityFailureType, verificationFailureTypes } from './failure-types';
import { registerHandlers } from './handlers';
import { patches } from './patches';
import { IdvProfileId, IdvProvider, IdvStatus } from './search-attributes';
import { type CarriedVerification, SessionState } from './session-state';

/**
 * One identity verification: creates the Direct Provider Session, exposes its step, learns the
 * outcome with few API calls, refreshes expiring steps, cancels at the deadline (creation
 * included), fetches results and schedules the redaction. Whatever happens (the service failing,
 * a Temporal cancellation, a defect) the clean-up runs: the session is not left live and its
 * redaction is scheduled. Continues as new when its history grows long, carrying its state.
 * Workflow ID: `idv-<reference>`.
 */
export async function verificationSession(
  input: VerificationInput,
  carried?: CarriedVerification,
): Promise<SealedVerificationOutcome> {
  // A fresh start must come sealed with its data key; a continuation carries what it started with.
  const problems = verificationInputProblems(input, {
    requireDataKey: patched(patches.dataKeys) && !carried,
  });
  if (problems.length > 0) {
    throw ApplicationFailure.create({
      type: verificationFailureTypes.invalidInput,
      message: `invalid verification input: ${problems.join('; ')}`,
      nonRetryable: true,
    });
  }
  const state = new SessionState(input, Date.now(), carried);
  registerHandlers(state);
  if (!carried) {
    upsertSearchAttributes([
      { key: IdvProfileId, value: input.verificationProfileId },
      { key: IdvProvider, value: input.provider },
      { key: IdvStatus, value: 'starting' },
    ]);
  }
  let failure: unknown;
  try {
    if ((await drive(input, state)) === 'continue') {
      return await continueAsNew<typeof verificationSession>(input, state.carry());
    }
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    failure = error;
  }
  await CancellationScope.nonCancellable(() =>
    cleanUp(input, state, isCancellation(failure) ? 'cancelled' : 'failed'),
  );
  if (failure !== undefined) throw asFailure(failure);
  return state.outcome();
}

/** The main flow: create, wait for the outcome (continuing as new if needed), fetch results. */
async function drive(input: VerificationInput, state: SessionState): Promise<'ended' | 'continue'> {
  if (state.sessionId === undefined && !state.done) {
    await createSession(input, state);
    if (state.sessionId) await scheduleOrphanSweep(input, state);
  }
  while (!state.done) {
    if ((await awaitOutcome(input, state)) === 'ended') break;
    // Continue as new once the handlers are done, unless a cancel came meanwhile: it goes first.
    await condition(() => allHandlersFinished() || state.cancelRequested !== undefined);
    // A handler may have learnt the outcome meanwhile (a native challenge answered): keep it.
    if (state.cancelRequested === undefined && !state.done) return 'continue';
  }
  await fetchResults(input, state);
  return 'ended';
}

async function fetchResults(input: VerificationInput, state: SessionState): Promise<void> {
  const sessionId = state.sessionId;
  if (state.ending?.status !== 'succeeded' || input.results === 'none' || !sessionId) return;
  try {
    const fetched = await results.fetchResults({
      sessionId,
      mode: input.results,
      dataKeyId: input.dataKeyId,
    });
    state.count('GetSessionResult');
    state.identity = fetched.identity;
    state.attachments = fetched.attachments;
    if (fetched.attachments) state.count('GetAttachment', fetched.attachments.length);
  } catch (error) {
    if (isCancellation(error)) throw error;
    // The person's data is redacted all the same (clean-up schedules it); the caller learns why.
    log.warn('fetching the results failed', { failureType: activityFailureType(error) });
    state.resultsUnavailable(Date.now());
  }
}

/** Temporal failures end the workflow as they are; anything else is a defect, failed after clean-up. */
function asFailure(error: unknown): unknown {
  if (error instanceof TemporalFailure) return error;
  return ApplicationFailure.create({
    type: verificationFailureTypes.defect,
    message: error instanceof Error ? error.message : String(error),
    nonRetryable: true,
  });
}
