import { Context } from '@temporalio/activity';
import { ApiError, ValidationError } from '../api/http/errors';
import { type NormalisedSessionState } from '../domain/session-status';
import { isSealed } from '../domain/sealed';
import { type NextStep, type VerificationInput } from '../domain/verification';
import { type ActivityDeps } from './deps';
import { classified } from './failures';
import { stateOf, stepView } from './wire-views';

/** What `createSession` returns: no results access key (it stays in the vault). */
export interface CreatedSession {
  sessionId: string;
  collectionMethod: string;
  nextStep: NextStep;
  /**
   * True when an earlier attempt of this workflow was never settled by an answer (lost answer,
   * timeout, 5xx, crash): it may have left an orphan session, to be swept.
   */
  orphansPossible: boolean;
}

/**
 * A definitive answer: the service created nothing unclaimed (a 4xx refusal, or never sent). A
 * success answer that could not be read (malformed, too large) did create a session.
 */
function settles(error: unknown): boolean {
  if (error instanceof ValidationError) return true;
  return error instanceof ApiError && error.status !== undefined && error.status >= 400 && error.status < 500;
}

/** Session activities: create, check, refresh, native challenge, cancel. */
export function sessionActivities(deps: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;
  /** A session seen done needs no more polls: the budget stops spreading polls over it. */
  const unpolledWhenDone = (sessionId: string, state: NormalisedSessionState) => {
    if (state.done) deps.identity.budget?.forget(sessionId);
    return state;
  };
  return {
    /**
     * CreateDirectProviderSession. Each attempt is recorded before it is sent and settled when an
     * answer says what became of it, so an attempt whose answer was lost is known to the orphan
     * sweep (see `sweepOrphans`), whatever happens to the workflow afterwards.
     */
    async createSession(input: VerificationInput): Promise<CreatedSession> {
      return await classified(async () => {
        const workflowId = Context.current().info.workflowExecution?.workflowId ?? 'standalone';
        // Opened first: a destroyed key (a verification redacted meanwhile) creates nothing. Runs
        // started before data keys existed carry it as it is.
        const providerInput = isSealed(input.providerInput)
          ? ((await deps.dataKeys.open(input.providerInput)) as Record<string, unknown>)
          : (input.providerInput as Record<string, unknown> | undefined);
        const attemptId = await deps.vault.recordCreateAttempt(workflowId, Date.now());
        let created;
        try {
          created = await deps.identity.sessions.createDirectProviderSession(
            {
              verificationProfileId: input.verificationProfileId,
              provider: input.provider,
              capabilities: input.capabilities,
              fallbackToHostedUI: input.fallbackToHostedUI,
              redirectUrl: input.redirectUrl,
              browserLanguages: input.browserLanguages,
              providerInput,
            },
            { signal: signal() },
          );
        } catch (error) {
          await deps.vault.endCreateAttempt(workflowId, attemptId, {
            endedAtMs: Date.now(),
            settled: settles(error),
          });
          throw error;
        }
        await deps.vault.claim(created.sessionId, {
          workflowId,
          resultsAccessKey: created.resultCollection.resultsAccessKey,
          ...(input.dataKeyId ? { dataKeyId: input.dataKeyId } : {}),
        });
        await deps.vault.endCreateAttempt(workflowId, attemptId, {
          endedAtMs: Date.now(),
          settled: true,
          sessionId: created.sessionId,
        });
        const attempts = await deps.vault.createAttempts(workflowId);
        return {
          sessionId: created.sessionId,
          collectionMethod: created.resultCollection.method,
          nextStep: stepView(created.nextStep),
          // An attempt unanswered, or one whose session this call did not keep (its answer
          // reached the vault but not the workflow): either may have left a live session.
          orphansPossible: attempts.some(
            (attempt) =>
              !attempt.settled ||
              (attempt.sessionId !== undefined && attempt.sessionId !== created.sessionId),
          ),
        };
      });
    },

    /** One GetSession, normalised. */
    async checkSession(sessionId: string): Promise<NormalisedSessionState> {
      return await classified(async () =>
        unpolledWhenDone(
          sessionId,
          stateOf(await deps.identity.sessions.get(sessionId, { signal: signal() })),
        ),
      );
    },

    /** RefreshStepContent with the vault's key. */
    async refreshStep(sessionId: string): Promise<NextStep> {
      return await classified(async () => {
        const key = await deps.vault.accessKey(sessionId);
        return stepView(
          await deps.identity.sessions.refreshStepContent(sessionId, key, { signal: signal() }),
        );
      });
    },

    /** SubmitNativeChallengeResponse with the vault's key. */
    async submitNativeChallenge(args: {
      sessionId: string;
      responseToken: string;
    }): Promise<NormalisedSessionState> {
      return await classified(async () => {
        const resultsAccessKey = await deps.vault.accessKey(args.sessionId);
        const session = await deps.identity.sessions.submitNativeChallengeResponse(
          { sessionId: args.sessionId, resultsAccessKey, responseToken: args.responseToken },
          { signal: signal() },
        );
        return stateOf(session);
      });
    },

    /**
     * CancelSession. A session that already finished cannot be cancelled: then its real state
     * is answered, so a last-moment success is not lost.
     */
    async cancelSession(sessionId: string): Promise<NormalisedSessionState> {
      return await classified(async () => {
        try {
          return unpolledWhenDone(
            sessionId,
            stateOf(await deps.identity.sessions.cancel(sessionId, { signal: signal() })),
          );
        } catch (error) {
          if (error instanceof ValidationError && error.sent) {
            const state = stateOf(await deps.identity.sessions.get(sessionId, { signal: signal() }));
            if (state.done) return unpolledWhenDone(sessionId, state);
          }
          throw error;
        }
      });
    },
  };
}
