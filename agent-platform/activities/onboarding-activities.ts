import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError } from '@temporalio/client';
import { connectionWorkflowId } from '../domain/agent-deliveries';
import { connectionEventsQuery, type SeenAgentEvent } from '../shared/messages';
import {
  InvalidOnboardingInputError,
  type OnboardingVerification,
  onboardingVerificationRequest,
} from '../domain/onboarding';
import { recordOfStart, type VerificationInput } from '../../verification/domain/verification';
import { Context } from '@temporalio/activity';
import { reserveReference } from '../../verification/client/reserve-reference';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { ONBOARDING_ALREADY_VERIFIED } from '../shared/failure-types';
import { type AgentPlatformDeps } from './deps';
import { classified } from '../../verification/activities/failures';

/** What {@link onboardingActivities}' `prepareOnboardingVerification` takes. */
export interface OnboardingVerificationRequest {
  tenant: string;
  connectionId: string;
  verification: OnboardingVerification;
}

/** The onboarding's activity: its verification's input, prepared as a client start would. */
export function onboardingActivities(deps: AgentPlatformDeps) {
  return {
    /**
     * The verification's input: validated, reference `onboarding-verification:<tenant>-<connectionId>`,
     * data key created (the redaction destroys it). A retry after a lost answer leaves an unused
     * key behind, as a client's retried start would; never a second verification.
     */
    async prepareOnboardingVerification(request: OnboardingVerificationRequest): Promise<VerificationInput> {
      let parsed: ReturnType<typeof onboardingVerificationRequest>;
      try {
        parsed = onboardingVerificationRequest(request.tenant, request.connectionId, request.verification);
      } catch (error) {
        // Classified once, here: no retry makes invalid settings valid.
        if (error instanceof InvalidOnboardingInputError)
          throw ApplicationFailure.create({
            type: 'InvalidOnboardingInput',
            message: error.message,
            nonRetryable: true,
          });
        throw error;
      }
      const dataKeyId = await classified(() => deps.dataKeys.create());
      const input: VerificationInput = { ...parsed, dataKeyId };
      // Its reference is kept as a client start keeps it: one verification per connection, ever.
      const { client } = Context.current();
      const workflowId = verificationWorkflowId(input.reference);
      const reservation = await reserveReference(
        { records: deps.records, vault: deps.vault, dataKeys: deps.dataKeys },
        recordOfStart(input),
        { workflowId, client },
      );
      // A start taken over keeps its key: an attempt that timed out can still write its
      // reservation after its retry's, taking over the start whose input runs. The record keeps
      // it, and the verification's redaction destroys it.
      if (reservation.kind === 'used') {
        await deps.dataKeys.destroy(dataKeyId);
        throw ApplicationFailure.create({
          type: ONBOARDING_ALREADY_VERIFIED,
          message: `this connection's verification has run already: see ${workflowId}`,
          nonRetryable: true,
        });
      }
      return input;
    },

    /**
     * The events the connection's `agentConnection` took before its onboarding ran (those it
     * keeps, the latest 100): the platform does not order its messages, so an awaited one may
     * come before `new_connection`. None when it has none.
     */
    async connectionEventsSoFar(connection: {
      tenant: string;
      connectionId: string;
    }): Promise<SeenAgentEvent[]> {
      const handle = Context.current().client.workflow.getHandle(
        connectionWorkflowId(connection.tenant, connection.connectionId),
      );
      try {
        return (await handle.query(connectionEventsQuery)).events;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return [];
        throw error;
      }
    },
  };
}
