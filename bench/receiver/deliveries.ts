// Agent deliveries: sent in lanes (directly to the receiver, or through the emulator's webhook
// delivery), then read back from the connection workflows' `events` query to see when each
// workflow handled its event.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client } from '@temporalio/client';
import { request } from 'undici';
import { agentMessageTypes, connectionWorkflowId } from '../../agent-platform/domain/agent-deliveries';
import {
  type ConnectionEvents,
  connectionEventsQuery,
  type SeenAgentEvent,
} from '../../agent-platform/shared/messages';
import { type Control, TENANT } from './stack';

/** One delivery as the bench sent it. */
export interface Sent {
  connectionId: string;
  objectId: string;
  /** Wall clock (ms) just before the request left, comparable with the workflow's ISO times. */
  sentAt: number;
  /** The connection's first event in the batch: its signal-with-start starts the workflow. */
  startsWorkflow: boolean;
}

/** What a batch of deliveries gave. */
export interface DeliveryRun {
  seconds: number;
  /** HTTP answer time of each delivery (ms). */
  answerMs: number[];
  sent: Sent[];
  /** Deliveries the receiver took over to Temporal at once (200 `delivered`). */
  delivered: number;
}

/** A batch: `count` events over `connections` connections, `inFlight` at once. */
export interface Batch {
  prefix: string;
  count: number;
  connections: number;
  inFlight: number;
}

/** Sends one event; resolves true when it was handed to Temporal at once (not spooled, not refused). */
export type Send = (event: {
  connectionId: string;
  objectId: string;
  messageType: string;
}) => Promise<boolean>;

/** Runs `task(0..count-1)` with at most `lanes` running at once. */
export async function inLanes(
  count: number,
  lanes: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, count) }, lane));
}

/** The platform's POST straight to the receiver's webhook URL. */
export function directSend(webhookUrl: string): Send {
  return async ({ connectionId, objectId, messageType }) => {
    const response = await request(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        message_type: messageType,
        object_id: objectId,
        data: { connection_id: connectionId },
      }),
    });
    const body = (await response.body.json()) as { status?: string };
    return response.statusCode === 200 && body.status === 'delivered';
  };
}

/** The emulated platform delivers the event to the tenant's registered webhook (the receiver). */
export function viaEmulatorSend(control: Control): Send {
  return async ({ connectionId, objectId, messageType }) => {
    const answer = await control('POST', '/agent-events', {
      tenant: TENANT,
      message_type: messageType,
      object_id: objectId,
      connection_id: connectionId,
    });
    const deliveries = answer.deliveries as Array<{ status?: number }>;
    return deliveries.length === 1 && deliveries[0]?.status === 200;
  };
}

/** Sends a batch and times each answer and the whole. */
export async function sendBatch(batch: Batch, send: Send): Promise<DeliveryRun> {
  const answerMs: number[] = [];
  const sent: Sent[] = [];
  let delivered = 0;
  const started = performance.now();
  await inLanes(batch.count, batch.inFlight, async (i) => {
    const event = {
      connectionId: `${batch.prefix}-conn-${i % batch.connections}`,
      objectId: `${batch.prefix}-event-${i}`,
      messageType: agentMessageTypes[i % agentMessageTypes.length] as string,
    };
    const sentAt = Date.now();
    const t0 = performance.now();
    if (await send(event)) delivered += 1;
    answerMs.push(performance.now() - t0);
    sent.push({ ...event, sentAt, startsWorkflow: i < batch.connections });
  });
  return { seconds: (performance.now() - started) / 1000, answerMs, sent, delivered };
}

/** How long a set of events took, per event (ms). */
export interface Delays {
  /** Sent → the receiver accepted it (its `receivedAt`). */
  accepted: number[];
  /** The receiver accepted it → the workflow handled the signal (`seenAt`). */
  handOff: number[];
  /** Sent → the workflow handled it. */
  seen: number[];
}

/** Delays of every event, and apart those that started their workflow and those that did not. */
export interface SeenDelays {
  all: Delays;
  starts: Delays;
  later: Delays;
  /** Events sent but not found in their workflow (should be 0). */
  missing: number;
}

const noDelays = (): Delays => ({ accepted: [], handOff: [], seen: [] });

function add(delays: Delays, sent: Sent, event: SeenAgentEvent): void {
  const received = Date.parse(event.receivedAt);
  const seen = Date.parse(event.seenAt);
  delays.accepted.push(received - sent.sentAt);
  delays.handOff.push(seen - received);
  delays.seen.push(seen - sent.sentAt);
}

/**
 * Queries a connection until its workflow has handled `expected` events: signal-with-start
 * returns once the signal is durable, which can be before the workflow task that handles it.
 */
async function eventsOf(client: Client, connectionId: string, expected: number): Promise<ConnectionEvents> {
  const handle = client.workflow.getHandle(connectionWorkflowId(TENANT, connectionId));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const events = await handle.query(connectionEventsQuery);
    if (events.total >= expected || Date.now() > deadline) return events;
    await sleep(200);
  }
}

/** Reads every connection's events back and matches them with what was sent. */
export async function seenDelays(client: Client, sent: readonly Sent[]): Promise<SeenDelays> {
  const byConnection = new Map<string, Map<string, Sent>>();
  for (const s of sent) {
    const events = byConnection.get(s.connectionId) ?? new Map<string, Sent>();
    events.set(s.objectId, s);
    byConnection.set(s.connectionId, events);
  }
  const delays: SeenDelays = { all: noDelays(), starts: noDelays(), later: noDelays(), missing: 0 };
  const connections = [...byConnection.entries()];
  await inLanes(connections.length, 16, async (i) => {
    const [connectionId, waiting] = connections[i] as [string, Map<string, Sent>];
    const { events } = await eventsOf(client, connectionId, waiting.size);
    for (const event of events) {
      const match = waiting.get(event.objectId);
      if (!match) continue;
      waiting.delete(event.objectId);
      add(delays.all, match, event);
      add(match.startsWorkflow ? delays.starts : delays.later, match, event);
    }
    // The query shows the latest 100 events: a batch keeps fewer per connection.
    delays.missing += waiting.size;
  });
  return delays;
}
