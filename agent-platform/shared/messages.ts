import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { type AgentMessageType } from '../domain/agent-deliveries';
import { type DriftPolicy, type WebhookDrift } from '../domain/webhook-registry';

// Names are stable API, like those of messages.ts.

/** What `register` takes: a URL of the business's own, or none for this deployment's receiver. */
export interface RegisterWebhookRequest {
  /** Absolute http(s) URL; absent: the receiver's URL with the tenant's token. */
  url?: string;
  /** @default 'Notification' (the only type the platform offers today) */
  type?: string;
}

/** A webhook as `list` shows it (the receiver's token hidden). */
export interface WebhookView {
  id: string;
  url: string;
  type: string;
  enabled: boolean;
  /** Managed by the registry; false for webhooks made outside it (they count toward the limit). */
  managed: boolean;
  /** The receiver's own webhook. */
  receiver: boolean;
}

/** The registry's state as `list` and the updates answer it. */
export interface WebhookListing {
  tenant: string;
  webhooks: WebhookView[];
  driftPolicy: DriftPolicy;
  reconcileEveryMs: number;
  /** The last comparison with the platform. */
  lastReconcile?: { at: string; ok: boolean; error?: string };
  /** Recent drift, newest last (at most 20). */
  drift: WebhookDrift[];
}

/** Update: register a webhook (refused before any call when invalid or a sixth Notification webhook). */
export const registerWebhookUpdate = defineUpdate<WebhookView, [RegisterWebhookRequest]>('register');
/** Update: enable a managed webhook. */
export const enableWebhookUpdate = defineUpdate<WebhookView, [webhookId: string]>('enable');
/** Update: disable a managed webhook (kept, no deliveries). */
export const disableWebhookUpdate = defineUpdate<WebhookView, [webhookId: string]>('disable');
/** Update: remove a managed webhook from the platform and the registry. */
export const removeWebhookUpdate = defineUpdate<WebhookListing, [webhookId: string]>('remove');
/** Update: compare with the platform now (and repair per the drift policy). */
export const reconcileWebhooksUpdate = defineUpdate<WebhookListing>('reconcile');
/** Query: the registry's webhooks, external ones and drift. */
export const listWebhooksQuery = defineQuery<WebhookListing>('list');

/** An agent event as the receiver hands it to the connection's workflow (ids only). */
export interface AgentEvent {
  tenant: string;
  connectionId: string;
  messageType: AgentMessageType;
  objectId: string;
  /** When the receiver accepted the delivery (ISO). */
  receivedAt: string;
}

/** An event as the connection's workflow saw it. */
export interface SeenAgentEvent {
  messageType: AgentMessageType;
  objectId: string;
  receivedAt: string;
  /** Workflow time when it was handled (ISO). */
  seenAt: string;
}

/** What the connection's workflow answers `events` with. */
export interface ConnectionEvents {
  tenant: string;
  connectionId: string;
  /** The latest events (at most 100), oldest first. */
  events: SeenAgentEvent[];
  /** Events handled, duplicates not counted. */
  total: number;
  /** Repeated deliveries absorbed. */
  duplicates: number;
  /** Signals that were not an event of this connection (sent by hand, or another tenant's): ignored, counted. */
  ignored?: number;
}

/** Signal (with start, by the receiver): an event of the connection. */
export const agentEventSignal = defineSignal<[AgentEvent]>('agentEvent');
/** Query: the events the connection's workflow has seen. */
export const connectionEventsQuery = defineQuery<ConnectionEvents>('events');
