import { ApplicationFailure, condition, patched, setHandler } from '@temporalio/workflow';
import { isSealed } from '../../codec/sealed';
import { KEEP_NEWER_STEP, sessionCalls } from './activity-proxies';
import { verificationFailureTypes } from '../shared/failure-types';
import {
  cancelUpdate,
  nextStepUpdate,
  progressQuery,
  redirectCapturedSignal,
  refreshStepUpdate,
  submitNativeChallengeUpdate,
} from '../shared/messages';
import { type SessionState } from './session-state';

function ended(state: SessionState): ApplicationFailure {
  return ApplicationFailure.create({
    type: verificationFailureTypes.ended,
    message: `the verification has already ended (${state.progress.status})`,
    nonRetryable: true,
  });
}

function invalidArgument(message: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: verificationFailureTypes.invalidArgument,
    message,
    nonRetryable: true,
  });
}

/**
 * Rejects (in a validator, before anything reaches history) when no session is running, once the
 * caller asked to cancel (an answer sent beside the cancel could finish the session the caller
 * gave up, or succeed after a failing cancel ended the verification `cancelled`), or while the
 * run moves to its next one (see `SessionState.movingOn`).
 */
function requireRunning(state: SessionState): void {
  if (state.done || state.closing) throw ended(state);
  if (state.cancelRequested !== undefined)
    throw ApplicationFailure.create({
      type: verificationFailureTypes.ended,
      message: 'the verification is being cancelled',
      nonRetryable: true,
    });
  if (!state.sessionId) throw invalidArgument('the session is not created yet');
  if (state.movingOn)
    throw ApplicationFailure.create({
      type: verificationFailureTypes.movingOn,
      message: 'the verification is moving to its next run (its history is full): send it again in a moment',
      nonRetryable: true,
    });
}

/**
 * Registers every message handler first thing. Handlers never own the verification's ending:
 * `cancel` only asks the main flow, which cancels at the service; the handlers that call the
 * service (`refreshStep`, `submitNativeChallenge`) are awaited by the main flow before it ends.
 */
export function registerHandlers(state: SessionState): void {
  setHandler(progressQuery, () => state.progress);
  setHandler(redirectCapturedSignal, () => {
    // Coalesced: any number of signals while a check is pending make one check.
    state.redirectCaptured();
  });
  setHandler(nextStepUpdate, async () => {
    await condition(
      () => state.sessionId !== undefined || state.createFailure !== undefined || state.done || state.closing,
    );
    const { sessionId, nextStep, collectionMethod, status, reference, dataKeyId } = state.progress;
    if (!sessionId || !nextStep || !collectionMethod) {
      throw (
        state.createFailure ??
        ApplicationFailure.create({
          type: verificationFailureTypes.notCreated,
          message: `the verification ended (${status}) before its session was created`,
          nonRetryable: true,
        })
      );
    }
    return { reference, sessionId, nextStep, collectionMethod, status, ...(dataKeyId ? { dataKeyId } : {}) };
  });
  setHandler(
    refreshStepUpdate,
    async () => {
      state.count('RefreshStepContent');
      state.step(
        await sessionCalls.refreshStep(state.sessionId as string, { userWaiting: true }),
        Date.now(),
        () => patched(KEEP_NEWER_STEP),
      );
      return state.progress.nextStep as NonNullable<typeof state.progress.nextStep>;
    },
    {
      validator: () => {
        requireRunning(state);
        if (!state.progress.nextStep?.refresh)
          throw invalidArgument('the current step has no refreshable content');
      },
    },
  );
  setHandler(
    submitNativeChallengeUpdate,
    async (responseToken) => {
      state.count('SubmitNativeChallengeResponse');
      state.finish(
        await sessionCalls.submitNativeChallenge({ sessionId: state.sessionId as string, responseToken }),
        Date.now(),
      );
      return state.progress;
    },
    {
      validator: (responseToken) => {
        if (isSealed(responseToken)) {
          // Sealed under another key, it would outlive the redaction readable.
          if (responseToken.keyId !== state.progress.dataKeyId)
            throw invalidArgument("responseToken must be sealed under the verification's data key");
        } else if (typeof responseToken !== 'string' || responseToken.length === 0)
          throw invalidArgument('responseToken is required');
        requireRunning(state);
        if (state.progress.nextStep?.method !== 'PerformNativeChallenge') {
          throw invalidArgument(
            `the session's step is ${state.progress.nextStep?.method ?? 'unknown'}, not a native challenge`,
          );
        }
      },
    },
  );
  setHandler(
    cancelUpdate,
    async (reason) => {
      // Its text is not read here: history keeps it (sealed, as the handle sends it).
      state.requestCancel(typeof reason === 'string' ? reason : 'sealed');
      await condition(() => state.done || state.closing);
      return state.progress;
    },
    {
      validator: (reason) => {
        // Sealed under another key, it would outlive the redaction readable.
        if (isSealed(reason) && reason.keyId !== state.progress.dataKeyId)
          throw invalidArgument("reason must be sealed under the verification's data key");
        if (state.done || state.closing) throw ended(state);
      },
    },
  );
}
