import { z } from 'zod';
import { kindWorkflowId } from '../../common/workflow-ids';

import {
  agentMessageTypes,
  type AgentMessageType,
  PLATFORM_ID_CHARACTERS,
  PLATFORM_ID_MAX,
} from '../../common/agent-message-types';
import { type AgentDelivery, deliveryKey } from './agent-delivery';

export { agentMessageTypes, type AgentMessageType, type AgentDelivery, deliveryKey };

/** Ids as the platform sends them: bounded, and safe in a workflow ID. */
const id = z
  .string()
  .min(1, { message: 'is required' })
  .max(PLATFORM_ID_MAX, { message: `must be at most ${PLATFORM_ID_MAX} characters` })
  .regex(PLATFORM_ID_CHARACTERS, { message: 'may contain only letters, digits, . _ : and -' });

/** A connection id as the receiver accepts it (bounded, safe in a workflow ID). */
export const connectionIdSchema = id;

/**
 * A delivery POSTed to a Notification webhook: `{message_type, object_id, data: {connection_id}}`;
 * the platform also spells the connection `ConnectionId`. Other fields are ignored.
 */
const deliverySchema = z.object({
  message_type: z.enum(agentMessageTypes, { message: `must be one of ${agentMessageTypes.join(', ')}` }),
  object_id: id,
  // Checked on `data` itself, so a missing connection is reported with the other fields' problems.
  data: z
    .object({ connection_id: id.optional(), ConnectionId: id.optional() }, { message: 'must be an object' })
    .refine((data) => data.connection_id !== undefined || data.ConnectionId !== undefined, {
      message: 'is required (connection_id or ConnectionId)',
      path: ['connection_id'],
    }),
});

/** The body is not a delivery; `errors` names each field (never quoting the body). */
export class InvalidDeliveryError extends Error {
  override readonly name = 'InvalidDeliveryError';
  constructor(readonly errors: Record<string, string[]>) {
    super(`invalid delivery: ${Object.keys(errors).join(', ')}`);
  }
}

/** Parses a delivery body (already JSON); throws {@link InvalidDeliveryError}. */
export function parseAgentDelivery(body: unknown): AgentDelivery {
  const parsed = deliverySchema.safeParse(body);
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues)
      (errors[issue.path.join('.') || '(body)'] ??= []).push(issue.message);
    throw new InvalidDeliveryError(errors);
  }
  const { message_type, object_id, data } = parsed.data;
  return {
    messageType: message_type,
    objectId: object_id,
    connectionId: (data.connection_id ?? data.ConnectionId) as string,
  };
}

/** The workflow that owns a tenant's connection: every event of the connection goes there. */
export function connectionWorkflowId(tenant: string, connectionId: string): string {
  return kindWorkflowId('connection', `${tenant}-${connectionId}`);
}

/**
 * The onboarding of a tenant's connection (`workflows/onboarding.ts`): one per connection. A `:`
 * between tenant and connection (tenants have none), so two tenants' connections never share it.
 */
export function onboardingWorkflowId(tenant: string, connectionId: string): string {
  return kindWorkflowId('onboarding', `${tenant}:${connectionId}`);
}
