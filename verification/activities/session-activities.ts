import { Context } from '@temporalio/activity';
import { type CallPriority } from '../../api/http/call-budget';
import { ApplicationFailure } from '@temporalio/common';
import { isSealed, type Sealed } from '../../codec/sealed';
import { type NormalisedSessionState } from '../domain/session-status';
import { type NextStep, type VerificationInput } from '../domain/verification';
import { accessKeyToKeep, keptAccessKey } from './access-keys';
import { attemptSettled, mayHaveOrphans } from './create-attempts';
import { cancelUnlessDone, type EndingCallState, unlessDone } from './end-session';
import { type VerificationDeps } from './deps';
import { classified } from './failures';
import { type FetchedResults, type ResultsAlong, resultsAlong } from './result-activities';
import { verificationFailureTypes } from '../shared/failure-types';
import { stateOf, stepView } from './wire-views';

/** The failure type of a create answered after its verification closed creation. */
export const CREATION_CLOSED = 'CreationClosed';

function creationClosed(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: CREATION_CLOSED, message, nonRetryable: true });
}

/** What `createSession` returns: no results access key (it stays in the vault). */
export interface CreatedSession {
  sessionId: string;
  collectionMethod: string;
  nextStep: NextStep;
  /**
   * True when an orphan may exist: an attempt of this verification not settled by an answer
   * (lost answer, timeout, 5xx, cancelled, crashed: the service may still carry it out), or a
   * session claimed for it that it does not keep. The profile's sweep is then needed.
   */
  orphansPossible: boolean;
}

/** How `checkSession` checks. */
export interface CheckOptions {
  /** The results to fetch along when it finds the session succeeded. */
  resultsAlong?: ResultsAlong;
  /** The user came back and waits for the outcome: the check (and its fetch along) goes first under the budget. */
  userReturned?: boolean;
}

/** What `checkSession` answers: the session's state, and the results fetched along (see `ResultsAlong`) when that worked out. */
export type CheckedSession = NormalisedSessionState & { results?: FetchedResults };

/** How often a create heartbeats while it waits for the service: a cancel reaches it in seconds. */
export const CREATE_HEARTBEAT_EVERY_MS = 1_000;

/** Session activities: create, check, refresh, native challenge, cancel. */
export function sessionActivities(deps: VerificationDeps) {
  const signal = () => Context.current().cancellationSignal;
  const fetchAlong = resultsAlong(deps);
  /** A session seen done needs no more polls: the budget stops spreading polls over it. */
  const unpolledWhenDone = <S extends NormalisedSessionState>(sessionId: string, state: S): S => {
    if (state.done) deps.identity.budget?.forget(sessionId);
    return state;
  };
  const create = async (input: VerificationInput): Promise<CreatedSession> => {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? 'standalone';
    const profileId = input.verificationProfileId;
    // Read first: a destroyed key (a verification redacted meanwhile) creates nothing, and the
    // session's access key is sealed under it without another read that could fail after the
    // create (its session then claimed by no one).
    const seal = await deps.dataKeys.sealer(input.dataKeyId);
    const providerInput =
      input.providerInput === undefined
        ? undefined
        : ((await deps.dataKeys.open(input.providerInput)) as Record<string, unknown>);
    const browserLanguages = isSealed(input.browserLanguages)
      ? ((await deps.dataKeys.open(input.browserLanguages)) as string[])
      : input.browserLanguages;
    const attemptId = await deps.vault.recordCreateAttempt({
      workflowId,
      profileId,
      startedAtMs: Date.now(),
    });
    // Checked once recorded: a close that comes after sees this attempt (under way) and asks for
    // the sweep; one that came before refuses it here, unsent.
    if ((await deps.vault.creation(workflowId))?.closed) {
      await deps.vault.endCreateAttempt(profileId, attemptId, { endedAtMs: Date.now(), settled: true });
      throw creationClosed('the verification has closed its creation: no create is sent');
    }
    let created;
    try {
      created = await deps.identity.sessions.createDirectProviderSession(
        {
          verificationProfileId: input.verificationProfileId,
          provider: input.provider,
          capabilities: input.capabilities,
          fallbackToHostedUI: input.fallbackToHostedUI,
          redirectUrl: input.redirectUrl,
          browserLanguages,
          providerInput,
        },
        { signal: signal() },
      );
    } catch (error) {
      await deps.vault.endCreateAttempt(profileId, attemptId, {
        endedAtMs: Date.now(),
        settled: attemptSettled(error),
      });
      throw error;
    }
    const claimed = await deps.vault.claim(created.sessionId, {
      workflowId,
      profileId,
      resultsAccessKey: accessKeyToKeep(seal, created.resultCollection.resultsAccessKey),
      dataKeyId: input.dataKeyId,
      collectionMethod: created.resultCollection.method,
      nextStep: stepView(created.nextStep),
    });
    await deps.vault.endCreateAttempt(profileId, attemptId, {
      endedAtMs: Date.now(),
      settled: true,
      sessionId: created.sessionId,
    });
    if ('closed' in claimed)
      throw creationClosed('the verification ended before this create was answered: its session is swept');
    // Its answer came so late that the sweep took the session: another attempt makes another.
    if ('swept' in claimed)
      throw ApplicationFailure.create({
        type: 'SessionSwept',
        message: 'the session of this create was swept as an orphan before its answer came: creating again',
      });
    const { kept } = claimed;
    const attempts = await deps.vault.createAttempts(profileId, workflowId);
    return {
      ...kept,
      orphansPossible: kept.sessionId !== created.sessionId || mayHaveOrphans(attempts, kept.sessionId),
    };
  };
  return {
    /**
     * CreateDirectProviderSession. Each attempt is recorded before it is sent and ended by what
     * became of it, so an attempt whose answer never came is known to the profile's sweep
     * whenever the service carries it out. It heartbeats, so a cancel (the deadline, the
     * caller) aborts it at once and the workflow waits until it has ended. The session is
     * claimed through the vault: the first one claimed for the verification is the one it keeps,
     * so an attempt that finds one kept already answers that one, and its own is swept.
     */
    async createSession(input: VerificationInput): Promise<CreatedSession> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), CREATE_HEARTBEAT_EVERY_MS);
      try {
        return await classified(() => create(input));
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * One GetSession, normalised, with the results fetched along when asked and it found the
     * session succeeded; a returning user's before any other call under the budget.
     */
    async checkSession(sessionId: string, options: CheckOptions = {}): Promise<CheckedSession> {
      // The workflow stopped its poll to check at once (a redirect): the attempt held here, if
      // any, is asked now, rather than polling once more to find the session this check reads.
      deps.heldPolls?.ask(sessionId);
      return await classified(async () => {
        const priority: CallPriority = options.userReturned ? 'user' : 'first';
        const call = { signal: signal(), priority };
        const state = unpolledWhenDone(sessionId, stateOf(await deps.identity.sessions.get(sessionId, call)));
        const results = await fetchAlong(sessionId, options.resultsAlong, state, call);
        return { ...state, ...(results ? { results } : {}) };
      });
    },

    /**
     * RefreshStepContent with the vault's key; the caller's (`userWaiting`: a person waits on the
     * page for the new content) before any other call under the budget.
     */
    async refreshStep(sessionId: string, options: { userWaiting?: boolean } = {}): Promise<NextStep> {
      return await classified(async () => {
        const key = await keptAccessKey(deps, sessionId);
        const priority: CallPriority = options.userWaiting ? 'user' : 'first';
        return stepView(
          await deps.identity.sessions.refreshStepContent(sessionId, key, { signal: signal(), priority }),
        );
      });
    },

    /**
     * SubmitNativeChallengeResponse with the vault's key. A submission refused because the
     * session has finished (an earlier one carried out, its answer lost) answers the session's
     * real state (see `unlessDone`); any other refusal is the caller's (a bad token, say), also
     * when the session could not be checked.
     */
    async submitNativeChallenge(args: {
      sessionId: string;
      /** As the caller gave it, or sealed under the verification's data key. */
      responseToken: string | Sealed;
    }): Promise<NormalisedSessionState> {
      return await classified(async () => {
        const resultsAccessKey = await keptAccessKey(deps, args.sessionId);
        const responseToken = isSealed(args.responseToken)
          ? await deps.dataKeys.open(args.responseToken)
          : args.responseToken;
        if (typeof responseToken !== 'string' || responseToken.length === 0)
          throw ApplicationFailure.nonRetryable(
            'the sealed responseToken is not a token',
            verificationFailureTypes.invalidArgument,
          );
        // The person waits on their device for it: before any other call under the budget.
        const options = { signal: signal(), priority: 'user' as const };
        const submit = () =>
          deps.identity.sessions.submitNativeChallengeResponse(
            { sessionId: args.sessionId, resultsAccessKey, responseToken },
            options,
          );
        // A first submission's refusal is the caller's when the session cannot be checked; a
        // retry's may follow an earlier one carried out, and is retried while it cannot.
        return await unlessDone(deps.identity.sessions, args.sessionId, submit, {
          ...options,
          refusalWhenUnchecked: Context.current().info.attempt === 1,
        });
      });
    },

    /**
     * CancelSession. A session that already finished is not cancelled: its real state is
     * answered, so a last-moment success is not lost (see `cancelUnlessDone`).
     */
    async cancelSession(sessionId: string): Promise<EndingCallState> {
      return await classified(async () => {
        const answer = await cancelUnlessDone(deps.identity.sessions, sessionId, { signal: signal() });
        // An earlier attempt may have been carried out, its answer lost: a cancelled session
        // then counts as ended by this call.
        const ours = answer.status === 'cancelled' && Context.current().info.attempt > 1;
        return unpolledWhenDone(sessionId, ours ? { ...answer, endedByCall: true as const } : answer);
      });
    },
  };
}
