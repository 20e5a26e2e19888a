import { type AgentMessageType } from '../../common/agent-message-types';

// Zod-free, for workflow code (agent-deliveries.ts parses deliveries with zod).

/** A delivery, normalised. */
export interface AgentDelivery {
  messageType: AgentMessageType;
  objectId: string;
  connectionId: string;
}

/** What makes two deliveries the same event (a repeated delivery reaches its workflow once). */
export function deliveryKey(delivery: AgentDelivery): string {
  return `${delivery.messageType}:${delivery.objectId}`;
}
