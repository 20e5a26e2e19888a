import { showDetails } from '../../common/current-details';
import { verificationMetadata } from '../shared/metadata';
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
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { type SealedVerificationOutcome, verificationErrorCodes } from '../domain/outcome';
import type { VerificationInput } from '../domain/verification';
import {
  ENDING_REPORTED_ON_REFUSAL,
  INPUT_CHECKED_BY_ACTIVITY,
  inputChecks,
  refusedStartKey,
  results,
  WAITS_GIVE_WAY,
} from './activity-proxies';
import { awaitOutcome } from './await-outcome';
import { askSweepFor, cleanUp, reportEnding } from './clean-up';
import { createSession } from './create-session';
import { activityFailureType } from '../../common/failure-types';
import { verificationFailureTypes } from '../shared/failure-types';
import { registerHandlers } from './handlers';
import { IdvProfileId, IdvProvider, IdvStatus } from '../../common/search-attributes';
import { type CarriedVerification, SessionState } from './session-state';
import { verificationVersioning } from '../shared/workflows';
import { setWorkflowOptions } from '@temporalio/workflow';

/**
 * One identity verification: creates the Direct Provider Session, exposes its step, learns the
 * outcome with few API calls, refreshes expiring steps, cancels at the deadline (creation
 * included), fetches results and schedules the redaction. Whatever happens (the service failing
 * or refusing, a Temporal cancellation, a defect) the clean-up runs: the session is not left
 * live and its redaction is scheduled. Every ending is an outcome with a documented status (only
 * input that breaks its bounds fails the workflow). Continues as new when its history grows
 * long, carrying its state. Workflow ID: `idv-<reference>`.
 */
export async function verificationSession(
  input: VerificationInput,
  carried?: CarriedVerification,
): Promise<SealedVerificationOutcome> {
  // Handlers first: an update-with-start's update is delivered in this first activation. Started
  // without arguments (by hand), the state is built from nothing and the check refuses it.
  const summary = () => verificationMetadata(input).staticSummary;
  const state: SessionState = new SessionState(input ?? ({} as VerificationInput), Date.now(), carried, () =>
    showDetails(state.details(), summary),
  );
  showDetails(state.details(), summary);
  registerHandlers(state);
  const { problems, why } = carried ? { problems: [], why: '' } : await checkInput(input);
  if (problems.length > 0) {
    const refusal = (message: string) =>
      ApplicationFailure.create({ type: verificationFailureTypes.invalidInput, message, nonRetryable: true });
    const failure = refusal(`invalid verification input: ${problems.join('; ')}`);
    // Nothing ran: the start's update answers with the refusal, a cancel at once, then the run fails.
    state.inputRefused(failure, why);
    state.beginClosing();
    const keyLeft = await destroyRefusedKey(input);
    // The workflow waiting for its report (an onboarding) learns it ended, as from a clean-up.
    // Not cancellable: a cancel meanwhile (its onboarding's) must not turn the refusal into one.
    if (
      input?.reportTo !== undefined &&
      typeof input.reference === 'string' &&
      patched(ENDING_REPORTED_ON_REFUSAL)
    )
      await CancellationScope.nonCancellable(() =>
        reportEnding(input.reportTo, {
          reference: input.reference,
          status: 'failed',
          errorCode: verificationFailureTypes.invalidInput,
        }),
      );
    await condition(allHandlersFinished);
    throw keyLeft ? refusal(`${failure.message}; ${keyLeft}`) : failure;
  }
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
  const cancelled = isCancellation(failure);
  if (failure !== undefined && !cancelled) {
    // A defect in this code: logged for its authors, an outcome for the caller.
    log.error('the verification failed on a defect; its clean-up runs', {
      error: failure instanceof Error ? failure.message : 'not an Error',
    });
    state.end({ status: 'failed', errorCode: verificationErrorCodes.defect }, Date.now());
  }
  await CancellationScope.nonCancellable(() => cleanUp(input, state, cancelled ? 'cancelled' : 'failed'));
  return state.outcome();
}

/**
 * Every rule the input breaks, checked by a local activity with the client's schema; a first run
 * only (a carried run's input passed at its first run, perhaps under an earlier build's schema).
 * Not cancellable: a cancel that comes meanwhile is seen by the main flow, whose clean-up runs.
 * A check that cannot run refuses the start as invalid input would. Histories of builds that
 * checked in the workflow passed the check there (or ended at it).
 */
async function checkInput(input: VerificationInput): Promise<{ problems: string[]; why: string }> {
  if (!patched(INPUT_CHECKED_BY_ACTIVITY)) return { problems: [], why: '' };
  try {
    const problems = await CancellationScope.nonCancellable(() => inputChecks.checkVerificationInput(input));
    return { problems, why: 'the input breaks its bounds' };
  } catch (error) {
    const failed = activityFailureType(error) ?? 'unknown failure';
    return {
      problems: [`could not be checked (${failed})`],
      why: `the input could not be checked (${failed})`,
    };
  }
}

/**
 * Destroys a refused start's data key when it is this start's (see `destroyRefusedStartKey`): it
 * sealed the input's providerInput, which this history keeps, and no run will use it (a start of
 * the same reference is refused as ended). Not cancellable. Says why the key is left when it
 * could not be destroyed.
 */
async function destroyRefusedKey(input: VerificationInput | undefined): Promise<string | undefined> {
  if (input === undefined) return undefined;
  try {
    await CancellationScope.nonCancellable(() =>
      refusedStartKey.destroyRefusedStartKey({ reference: input.reference, dataKeyId: input.dataKeyId }),
    );
    return undefined;
  } catch (error) {
    const failed = activityFailureType(error) ?? 'the store did not answer within 10 minutes';
    log.warn("the refused start's data key could not be destroyed", { failureType: failed });
    return `its data key could not be destroyed (${failed}): run idv redact ${input.reference} once the store answers`;
  }
}

/** The main flow: create, wait for the outcome (continuing as new if needed), fetch results. */
async function drive(input: VerificationInput, state: SessionState): Promise<'ended' | 'continue'> {
  if (state.sessionId === undefined && !state.done) {
    if (await createSession(input, state)) await askSweepFor(input, state);
  }
  while (!state.done) {
    if ((await awaitOutcome(input, state)) === 'ended') break;
    // Continue as new once the handlers are done, unless a cancel came meanwhile: it goes first,
    // as does the deadline. New updates that call the service are refused meanwhile.
    const givesWay = patched(WAITS_GIVE_WAY);
    if (givesWay) {
      state.moveOn();
      await condition(
        () => allHandlersFinished() || state.cancelRequested !== undefined,
        Math.max(1, state.deadlineMs - Date.now()),
        { summary: 'until its handlers finish, before it continues as new' },
      );
    } else await condition(() => allHandlersFinished() || state.cancelRequested !== undefined);
    // A handler may have learnt the outcome meanwhile (a native challenge answered): keep it.
    const deadlinePassed = givesWay && Date.now() >= state.deadlineMs;
    if (state.cancelRequested === undefined && !state.done && !deadlinePassed) return 'continue';
    if (givesWay) state.stayOn();
  }
  await fetchResults(input, state);
  return 'ended';
}

async function fetchResults(input: VerificationInput, state: SessionState): Promise<void> {
  const sessionId = state.sessionId;
  if (state.ending?.status !== 'succeeded' || input.results === 'none' || !sessionId || state.resultsIn)
    return;
  try {
    const fetched = await results.fetchResults({
      sessionId,
      mode: input.results,
      dataKeyId: input.dataKeyId,
    });
    state.count('GetSessionResult');
    state.resultsFetched(fetched);
    if (fetched.attachments) state.count('GetAttachment', fetched.attachments.length);
  } catch (error) {
    // Cancelled or failed, the results are not delivered: the person's data is redacted all the
    // same (clean-up schedules it, once the fetch has stopped), and the outcome says why.
    state.resultsUnavailable(Date.now());
    if (isCancellation(error)) throw error;
    log.warn('fetching the results failed', { failureType: activityFailureType(error) });
  }
}

setWorkflowOptions({ versioningBehavior: verificationVersioning.session }, verificationSession);
