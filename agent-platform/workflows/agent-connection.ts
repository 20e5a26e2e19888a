import { showDetails } from '../../common/current-details';
import { connectionMetadata } from '../shared/metadata';
import { ApplicationFailure, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { agentMessageTypes } from '../../common/agent-message-types';
import { tenantProblem } from '../domain/agent-tenants';
import {
  type AgentEvent,
  agentEventSignal,
  type ConnectionEvents,
  connectionEventsQuery,
  type SeenAgentEvent,
} from '../shared/messages';
import { type AgentConnectionInput } from '../shared/workflows';
import { agentPlatformVersioning } from '../shared/workflows';
import { setWorkflowOptions } from '@temporalio/workflow';
import { markdownLines } from '../../common/user-metadata';

const DAY = 86_400_000;
const MAX_EVENTS_SHOWN = 100;
/** Deliveries remembered for deduplication: far more than any connection sees in one run. */
const MAX_KEYS_REMEMBERED = 2_000;

/**
 * The workflow that owns one connection of a tenant (`idv-connection-<tenant>-<connectionId>`):
 * the receiver signals-with-start every agent event of the connection here. It absorbs repeated
 * deliveries (same message type and object id), keeps the latest events for its `events` query,
 * and ends with them once the connection has been quiet for `idleTimeoutMs`.
 */
export async function agentConnection(input: AgentConnectionInput): Promise<ConnectionEvents> {
  const problem = tenantProblem(input.tenant);
  if (problem)
    throw ApplicationFailure.create({ type: 'InvalidConnectionInput', message: problem, nonRetryable: true });
  const idleTimeoutMs = clamp(input.idleTimeoutMs ?? 30 * DAY, 1_000, 365 * DAY);
  const maxHistoryEvents = clamp(input.maxHistoryEvents ?? 2_000, 20, 20_000);
  let events = input.carried?.events ?? [];
  const keys = new Set(input.carried?.keys ?? []);
  let total = input.carried?.total ?? 0;
  let duplicates = input.carried?.duplicates ?? 0;
  let ignored = input.carried?.ignored ?? 0;

  const summary = (): ConnectionEvents => ({
    tenant: input.tenant,
    connectionId: input.connectionId,
    events,
    total,
    duplicates,
    ...(ignored > 0 ? { ignored } : {}),
  });
  setHandler(connectionEventsQuery, summary);
  setHandler(agentEventSignal, (event: AgentEvent) => {
    // Not this connection's, or not an event (a signal sent by hand): nothing to record.
    const ours =
      event?.tenant === input.tenant &&
      event.connectionId === input.connectionId &&
      agentMessageTypes.includes(event.messageType) &&
      typeof event.objectId === 'string';
    if (!ours) {
      ignored += 1;
      return;
    }
    const key = `${event.messageType}:${event.objectId}`;
    if (keys.has(key)) {
      duplicates += 1;
      return;
    }
    keys.add(key);
    if (keys.size > MAX_KEYS_REMEMBERED) keys.delete(keys.values().next().value as string);
    total += 1;
    const seen: SeenAgentEvent = {
      messageType: event.messageType,
      objectId: event.objectId,
      receivedAt: event.receivedAt,
      seenAt: new Date().toISOString(),
    };
    events = [...events, seen].slice(-MAX_EVENTS_SHOWN);
  });

  const historyLarge = () => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= maxHistoryEvents;
  };
  for (;;) {
    const heard = total + duplicates;
    showDetails(
      markdownLines([
        `**listening**: ${total} events kept, ${duplicates} repeats absorbed`,
        `Ends if no event comes until ${new Date(Date.now() + idleTimeoutMs).toISOString()}`,
      ]),
      () => connectionMetadata(input.tenant, input.connectionId).staticSummary,
    );
    const active = await condition(() => total + duplicates !== heard || historyLarge(), idleTimeoutMs, {
      summary: 'until the connection is idle',
    });
    if (historyLarge())
      return await continueAsNew<typeof agentConnection>({
        ...input,
        carried: { events, keys: [...keys], total, duplicates, ignored },
      });
    if (!active) return summary();
  }
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(value, min), max) : min;
}

setWorkflowOptions({ versioningBehavior: agentPlatformVersioning.connection }, agentConnection);
