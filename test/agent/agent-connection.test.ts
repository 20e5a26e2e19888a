import { type agentConnection } from '../../agent-platform/workflows/agent-connection';
import {
  type AgentEvent,
  agentEventSignal,
  connectionEventsQuery,
} from '../../agent-platform/shared/messages';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

let count = 0;
const event = (connectionId: string, objectId: string): AgentEvent => ({
  tenant: 'tenant-c',
  connectionId,
  messageType: 'new_inbox_message',
  objectId,
  receivedAt: new Date().toISOString(),
});

describe('agentConnection: the workflow that owns a connection', () => {
  const stack = useVerificationStack();
  const start = (
    connectionId: string,
    options: { idleTimeoutMs?: number; maxHistoryEvents?: number },
    first: AgentEvent,
  ) =>
    stack().client.workflow.signalWithStart<typeof agentConnection, [AgentEvent]>('agentConnection', {
      workflowId: `idv-connection-tenant-c-${connectionId}`,
      taskQueue: stack().taskQueue,
      args: [{ tenant: 'tenant-c', connectionId, ...options }],
      signal: agentEventSignal,
      signalArgs: [first],
    });

  it('ends with the events it saw once the connection has been quiet for its idle timeout', async () => {
    const connectionId = `quiet-${(count += 1)}`;
    const handle = await start(connectionId, { idleTimeoutMs: 5_000 }, event(connectionId, 'o-1'));
    await handle.signal(agentEventSignal, event(connectionId, 'o-2'));
    await handle.signal(agentEventSignal, event(connectionId, 'o-1'));
    await handle.signal(agentEventSignal, { ...event(connectionId, 'o-3'), tenant: 'another-tenant' });
    const summary = await handle.result();
    expect(summary).toMatchObject({ tenant: 'tenant-c', connectionId, total: 2, duplicates: 1, ignored: 1 });
    expect(summary.events.map((seen) => seen.objectId)).toEqual(['o-1', 'o-2']);
  });

  it('continues as new before its history grows large, still absorbing repeats of earlier runs', async () => {
    const connectionId = `busy-${(count += 1)}`;
    const handle = await start(connectionId, { maxHistoryEvents: 20 }, event(connectionId, 'e-0'));
    const { runId: firstRun } = await handle.describe();
    for (let n = 1; n < 15; n += 1) await handle.signal(agentEventSignal, event(connectionId, `e-${n}`));
    await eventually(
      async () => ((await handle.describe()).runId !== firstRun ? true : undefined),
      'a new run',
    );
    await handle.signal(agentEventSignal, event(connectionId, 'e-3'));
    const seen = await eventually(async () => {
      const current = await handle.query(connectionEventsQuery);
      return current.total === 15 && current.duplicates === 1 ? current : undefined;
    }, 'every event once, the repeat absorbed');
    expect(seen.events).toHaveLength(15);
    await handle.terminate();
  });
});
