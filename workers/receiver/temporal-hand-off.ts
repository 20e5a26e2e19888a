import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { connectionWorkflowId, onboardingWorkflowId } from '../../domain/agent-deliveries';
import { onboardingInputFor, type OnboardingSettings } from '../../domain/onboarding-settings';
import { type agentConnection } from '../../workflows/agent-connection';
import { type AgentEvent, agentEventSignal } from '../../workflows/agent-messages';
import { type onboarding } from '../../workflows/onboarding';
import { type HandOff } from './delivery-intake';

/** Options of {@link temporalHandOff}. */
export interface TemporalHandOffOptions {
  /** The task queue of the workers that run the connection workflows. */
  taskQueue: string;
  /** How long Temporal may take to accept one event before it is spooled instead. @default 5000 */
  timeoutMs?: number;
  /** Tenants whose connections are onboarded: their events go to `onboarding`, not `agentConnection`. */
  onboarding?: OnboardingSettings;
  /** Called for an event of a connection whose onboarding has ended: acknowledged, nothing started. */
  onEndedOnboarding?: () => void;
}

/**
 * Signal-with-start on the workflow that owns the event's connection: started if it is not
 * running, signalled either way, in one call that Temporal acknowledges once it is durable.
 * A connection of an onboarded tenant is owned by its onboarding instead, started once only.
 */
export function temporalHandOff(client: Client, options: TemporalHandOffOptions): HandOff {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return async (event) => {
    const onboardingInput =
      options.onboarding && onboardingInputFor(options.onboarding, event.tenant, event.connectionId);
    await client.connection.withDeadline(Date.now() + timeoutMs, async () => {
      if (!onboardingInput) {
        await client.workflow.signalWithStart<typeof agentConnection, [AgentEvent]>('agentConnection', {
          workflowId: connectionWorkflowId(event.tenant, event.connectionId),
          taskQueue: options.taskQueue,
          args: [{ tenant: event.tenant, connectionId: event.connectionId }],
          signal: agentEventSignal,
          signalArgs: [event],
        });
        return;
      }
      try {
        await client.workflow.signalWithStart<typeof onboarding, [AgentEvent]>('onboarding', {
          workflowId: onboardingWorkflowId(event.tenant, event.connectionId),
          taskQueue: options.taskQueue,
          args: [onboardingInput],
          signal: agentEventSignal,
          signalArgs: [event],
          // One onboarding per connection: an event after it has ended must not start another.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (error) {
        // Handled, not failed: spooling it would retry forever what can never be taken.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        options.onEndedOnboarding?.();
      }
    });
  };
}
