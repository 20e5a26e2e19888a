import { request } from 'undici';
import { type AgentMessageType } from '../common/agent-message-types';
import { type EmulatorStore } from './state/store';

/** An agent event as injected through the control API. */
export interface AgentEvent {
  tenant: string;
  message_type: AgentMessageType;
  object_id: string;
  connection_id: string;
}

/** Message types of the earlier platform's events (shared with the receiver through domain/). */
export { agentMessageTypes } from '../common/agent-message-types';

/** The outcome of one delivery attempt. */
export interface DeliveryResult {
  webhookId: string;
  url: string;
  status?: number;
  error?: string;
}

/**
 * Delivers an event to every enabled Notification webhook of the tenant: an HTTP POST of
 * `{message_type, object_id, data: {connection_id}}`, once each (the interface does not show
 * delivery retries). Resolves when every attempt has ended.
 */
export async function deliverAgentEvent(store: EmulatorStore, event: AgentEvent): Promise<DeliveryResult[]> {
  const targets = [...store.webhooks.values()].filter(
    (w) => w.tenant === event.tenant && w.type === 'Notification' && w.enabled,
  );
  const payload = JSON.stringify({
    message_type: event.message_type,
    object_id: event.object_id,
    data: { connection_id: event.connection_id },
  });
  return await Promise.all(
    targets.map(async (webhook): Promise<DeliveryResult> => {
      try {
        const response = await request(webhook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: payload,
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        await response.body.dump();
        return { webhookId: webhook.id, url: webhook.url, status: response.statusCode };
      } catch (error) {
        return {
          webhookId: webhook.id,
          url: webhook.url,
          error: error instanceof Error ? error.message : String(error),
        };
      }
    }),
  );
}
