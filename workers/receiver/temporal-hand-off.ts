import { grpcStatus } from '../../common/grpc-status';
import { connectionMetadata, onboardingMetadata } from '../../agent-platform/shared/metadata';
import {
  type Client,
  isGrpcServiceError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { connectionWorkflowId, onboardingWorkflowId } from '../../agent-platform/domain/agent-deliveries';
import { onboardingInputProblems } from '../../agent-platform/domain/onboarding';
import { onboardingInputFor, type OnboardingSettings } from '../../agent-platform/domain/onboarding-settings';
import { type AgentEvent, agentEventSignal } from '../../agent-platform/shared/messages';
import { type HandOff } from './delivery-intake';
import {
  type AgentConnectionWorkflow,
  agentPlatformWorkflowTypes,
  type OnboardingWorkflow,
} from '../../agent-platform/shared/workflows';

/** Options of {@link temporalHandOff}. */
export interface TemporalHandOffOptions {
  /** The task queue of the workers that run the connection workflows. */
  taskQueue: string;
  /** How long Temporal may take to accept one event before it is spooled instead. @default 5000 */
  timeoutMs?: number;
  /** Tenants whose connections are onboarded: their `new_connection` starts an `onboarding`. */
  onboarding?: OnboardingSettings;
  /**
   * An event of an onboarded tenant went to `agentConnection` instead: `ended` (its onboarding
   * is over, or refuses more events), `invalid` (the settings make no valid onboarding input for
   * this connection, e.g. ids too long for its reference).
   */
  onNotOnboarded?: (reason: 'ended' | 'invalid') => void;
}

/** The onboarding no longer takes signals: not running, or refusing them for good. */
function takesNoMore(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  const cause = error instanceof ServiceError ? error.cause : error;
  if (!isGrpcServiceError(cause)) return false;
  // A signal that can never be taken (the run's signal or history limits reached).
  const code = Number(cause.code);
  return code === grpcStatus.INVALID_ARGUMENT || code === grpcStatus.FAILED_PRECONDITION;
}

/**
 * Hands each event to the workflow that owns its connection, in one call that Temporal
 * acknowledges once it is durable. Normally that is `agentConnection` (signal-with-start).
 * For an onboarded tenant, a `new_connection` signal-with-starts the connection's `onboarding`
 * (once: `REJECT_DUPLICATE`); every other event signals the connection's onboarding while one
 * runs, whatever the settings (one signal more per event of a tenant not onboarded, which
 * fails at once). An event no onboarding takes (it has ended, never started, or cannot take
 * more; or the settings make no valid input for the connection) goes to `agentConnection`:
 * never dropped, never spooled forever.
 */
export function temporalHandOff(client: Client, options: TemporalHandOffOptions): HandOff {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const toConnection = (event: AgentEvent) =>
    client.workflow.signalWithStart<AgentConnectionWorkflow, [AgentEvent]>(
      agentPlatformWorkflowTypes.connection,
      {
        workflowId: connectionWorkflowId(event.tenant, event.connectionId),
        taskQueue: options.taskQueue,
        args: [{ tenant: event.tenant, connectionId: event.connectionId }],
        ...connectionMetadata(event.tenant, event.connectionId),
        signal: agentEventSignal,
        signalArgs: [event],
      },
    );
  /** The input of the onboarding a `new_connection` starts: the settings' for its tenant, if valid. */
  const startInput = (event: AgentEvent) => {
    if (event.messageType !== 'new_connection') return undefined;
    const input =
      options.onboarding && onboardingInputFor(options.onboarding, event.tenant, event.connectionId);
    if (!input) return undefined;
    // Checked here as the workflow would: a run that fails at once would swallow the event and
    // block the connection's onboarding for good.
    if (onboardingInputProblems(input).length > 0) {
      options.onNotOnboarded?.('invalid');
      return undefined;
    }
    return input;
  };
  /**
   * Hands the event to the connection's onboarding: starts it on a `new_connection` the settings
   * onboard; otherwise signals it if one runs, whatever the settings say now (started with other
   * settings, before a restart, or by hand with `OnboardingClient`: it owns its connection's
   * events). False when no onboarding takes it.
   */
  const toOnboarding = async (event: AgentEvent): Promise<boolean> => {
    const input = startInput(event);
    const workflowId = onboardingWorkflowId(event.tenant, event.connectionId);
    try {
      if (input)
        await client.workflow.signalWithStart<OnboardingWorkflow, [AgentEvent]>(
          agentPlatformWorkflowTypes.onboarding,
          {
            workflowId,
            taskQueue: options.taskQueue,
            args: [input],
            ...onboardingMetadata(event.tenant, event.connectionId),
            signal: agentEventSignal,
            signalArgs: [event],
            // One onboarding per connection: a repeated new_connection after it ended starts none.
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
          },
        );
      else await client.workflow.getHandle(workflowId).signal(agentEventSignal, event);
      return true;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError) && !takesNoMore(error)) throw error;
      // No onboarding for a tenant not onboarded is the usual case, not worth a notice.
      const onboarded =
        options.onboarding && onboardingInputFor(options.onboarding, event.tenant, event.connectionId);
      if (onboarded && (input || !(error instanceof WorkflowNotFoundError)))
        options.onNotOnboarded?.('ended');
      return false;
    }
  };
  return async (event) => {
    await client.connection.withDeadline(Date.now() + timeoutMs, async () => {
      if (!(await toOnboarding(event))) await toConnection(event);
    });
  };
}
