import { type Client } from '@temporalio/client';
import { connectionWorkflowId } from '../../domain/agent-deliveries';
import { type agentConnection } from '../../workflows/agent-connection';
import { agentEventSignal } from '../../workflows/agent-messages';
import { type HandOff } from './delivery-intake';

/** Options of {@link temporalHandOff}. */
export interface TemporalHandOffOptions {
  /** The task queue of the workers that run the connection workflows. */
  taskQueue: string;
  /** How long Temporal may take to accept one event before it is spooled instead. @default 5000 */
  timeoutMs?: number;
}

/**
 * Signal-with-start on the workflow that owns the event's connection: started if it is not
 * running, signalled either way, in one call that Temporal acknowledges once it is durable.
 */
export function temporalHandOff(client: Client, options: TemporalHandOffOptions): HandOff {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return async (event) => {
    await client.connection.withDeadline(Date.now() + timeoutMs, () =>
      client.workflow.signalWithStart<typeof agentConnection, [typeof event]>('agentConnection', {
        workflowId: connectionWorkflowId(event.tenant, event.connectionId),
        taskQueue: options.taskQueue,
        args: [{ tenant: event.tenant, connectionId: event.connectionId }],
        signal: agentEventSignal,
        signalArgs: [event],
      }),
    );
  };
}
