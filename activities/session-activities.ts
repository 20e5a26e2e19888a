import { Context } from '@temporalio/activity';
import { ValidationError } from '../api/http/errors';
import { type NormalisedSessionState } from '../domain/session-status';
import { type NextStep, type VerificationInput } from '../domain/verification';
import { type ActivityDeps } from './deps';
import { classified } from './failures';
import { stateOf, stepView } from './wire-views';

// The service stamps sessions in whole seconds, and its clock is not ours.
const CLOCK_SLACK_MS = 2_000;

/** What `createSession` returns: no results access key (it stays in the vault). */
export interface CreatedSession {
  sessionId: string;
  collectionMethod: string;
  nextStep: NextStep;
  /**
   * Time windows (epoch ms) of earlier attempts whose answers were lost: a session created in
   * one of them and claimed by no workflow is an orphan of this create.
   */
  orphanWindows: Array<{ fromMs: number; toMs: number }>;
}

/** Session activities: create, check, refresh, native challenge, cancel. */
export function sessionActivities(deps: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;
  return {
    /**
     * CreateDirectProviderSession. Each attempt is recorded before it is sent, so when an answer
     * is lost and Temporal retries, the workflow learns the window in which an orphan may have
     * been created and sweeps it (see `cancelOrphanedSessions`).
     */
    async createSession(input: VerificationInput): Promise<CreatedSession> {
      return await classified(async () => {
        const workflowId = Context.current().info.workflowExecution?.workflowId ?? 'standalone';
        const attempts = await deps.vault.recordCreateAttempt(workflowId, Date.now());
        const created = await deps.identity.sessions.createDirectProviderSession(
          {
            verificationProfileId: input.verificationProfileId,
            provider: input.provider,
            capabilities: input.capabilities,
            fallbackToHostedUI: input.fallbackToHostedUI,
            redirectUrl: input.redirectUrl,
            browserLanguages: input.browserLanguages,
            providerInput: input.providerInput,
          },
          { signal: signal() },
        );
        await deps.vault.claim(created.sessionId, {
          workflowId,
          resultsAccessKey: created.resultCollection.resultsAccessKey,
        });
        return {
          sessionId: created.sessionId,
          collectionMethod: created.resultCollection.method,
          nextStep: stepView(created.nextStep),
          orphanWindows: attempts.slice(0, -1).map((startedAt, index) => ({
            fromMs: startedAt - CLOCK_SLACK_MS,
            toMs: (attempts[index + 1] ?? Date.now()) + CLOCK_SLACK_MS,
          })),
        };
      });
    },

    /** One GetSession, normalised. */
    async checkSession(sessionId: string): Promise<NormalisedSessionState> {
      return await classified(async () =>
        stateOf(await deps.identity.sessions.get(sessionId, { signal: signal() })),
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
          return stateOf(await deps.identity.sessions.cancel(sessionId, { signal: signal() }));
        } catch (error) {
          if (error instanceof ValidationError && error.sent) {
            const state = stateOf(await deps.identity.sessions.get(sessionId, { signal: signal() }));
            if (state.done) return state;
          }
          throw error;
        }
      });
    },
  };
}
