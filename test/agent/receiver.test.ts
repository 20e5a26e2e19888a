import { request } from 'undici';
import { connectionWorkflowId } from '../../agent-platform/domain/agent-deliveries';
import { type ConnectionEvents, connectionEventsQuery } from '../../agent-platform/shared/messages';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

const TENANT = 'tenant-r';
const KEY = 'agent_key_tenant_r_0123456789';

describe('receiver: agent deliveries into the connection workflows', () => {
  const stack = useVerificationStack({ agentKeys: { [TENANT]: KEY } }, { receiver: true });
  let connections = 0;
  const newConnection = () => `conn-${process.pid}-${(connections += 1)}`;
  const receiverUrl = () => stack().receiver?.url ?? '';
  const agentUrl = (tenant = TENANT, token = stack().tokens.tenantToken(tenant)) =>
    `${receiverUrl()}/agent/${tenant}/${token}`;
  const post = async (url: string, body: unknown) => {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.body.text();
    return {
      status: response.statusCode,
      type: response.headers['content-type'],
      body: text ? JSON.parse(text) : undefined,
    };
  };
  const emulatorEvent = async (connectionId: string, objectId: string, messageType = 'new_connection') =>
    (await stack().control('POST', '/agent-events', {
      tenant: TENANT,
      message_type: messageType,
      object_id: objectId,
      connection_id: connectionId,
    })) as { deliveries: Array<{ status?: number; error?: string }> };
  const events = (connectionId: string) =>
    stack()
      .client.workflow.getHandle(connectionWorkflowId(TENANT, connectionId))
      .query(connectionEventsQuery);
  const eventsOnceSeen = (connectionId: string, total: number) =>
    eventually(async () => {
      const seen: ConnectionEvents | undefined = await events(connectionId).catch(() => undefined);
      return seen && seen.total >= total ? seen : undefined;
    }, `${total} event(s) of ${connectionId}`);

  beforeAll(async () => {
    await stack().webhooks.register(TENANT);
  });

  it('hands each event the platform POSTs to the workflow that owns its connection', async () => {
    const first = newConnection();
    const second = newConnection();
    expect((await emulatorEvent(first, 'obj-1')).deliveries).toEqual([
      expect.objectContaining({ status: 200 }),
    ]);
    await emulatorEvent(second, 'obj-2', 'credential_request');
    await emulatorEvent(first, 'obj-3', 'verification');
    const seenFirst = await eventsOnceSeen(first, 2);
    expect(seenFirst.events.map((event) => [event.messageType, event.objectId])).toEqual([
      ['new_connection', 'obj-1'],
      ['verification', 'obj-3'],
    ]);
    const seenSecond = await eventsOnceSeen(second, 1);
    expect(seenSecond).toMatchObject({ tenant: TENANT, connectionId: second, total: 1, duplicates: 0 });
  });

  it('says its health: the spool, and how long the connection waiting longest has waited', async () => {
    const response = await request(`${receiverUrl()}/health`);
    expect(response.statusCode).toBe(200);
    expect(await response.body.json()).toEqual({ ok: true, spoolDepth: 0, longestWaitSeconds: 0 });
  });

  it('absorbs a repeated delivery: the workflow sees the event once', async () => {
    const connectionId = newConnection();
    await emulatorEvent(connectionId, 'obj-dup');
    const again = await post(agentUrl(), {
      message_type: 'new_connection',
      object_id: 'obj-dup',
      data: { connection_id: connectionId },
    });
    expect(again).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    await emulatorEvent(connectionId, 'obj-next', 'new_inbox_message');
    const seen = await eventsOnceSeen(connectionId, 2);
    expect(seen.total).toBe(2);
    expect(seen.events.map((event) => event.objectId)).toEqual(['obj-dup', 'obj-next']);
  });

  it('absorbs a repeat that reaches the workflow (a receiver that forgot it, after a restart)', async () => {
    const connectionId = newConnection();
    const event = {
      tenant: TENANT,
      connectionId,
      messageType: 'verification' as const,
      objectId: 'obj-twice',
      receivedAt: new Date().toISOString(),
    };
    const handle = stack().client.workflow.getHandle(connectionWorkflowId(TENANT, connectionId));
    await post(agentUrl(), {
      message_type: 'verification',
      object_id: 'obj-twice',
      data: { connection_id: connectionId },
    });
    await handle.signal('agentEvent', event);
    const seen = await eventually(async () => {
      const current = await events(connectionId);
      return current.duplicates === 1 ? current : undefined;
    }, 'the repeat to be counted');
    expect(seen.total).toBe(1);
  });

  it('accepts the platform’s ConnectionId spelling', async () => {
    const connectionId = newConnection();
    const answer = await post(agentUrl(), {
      message_type: 'credential_request',
      object_id: 'obj-pascal',
      data: { ConnectionId: connectionId },
    });
    expect(answer).toMatchObject({ status: 200, body: { status: 'delivered' } });
    expect((await eventsOnceSeen(connectionId, 1)).events[0]).toMatchObject({ objectId: 'obj-pascal' });
  });

  it('answers 401 alike to a forged token and to a tenant that does not exist, and starts nothing', async () => {
    const connectionId = newConnection();
    const body = {
      message_type: 'new_connection',
      object_id: 'obj-forged',
      data: { connection_id: connectionId },
    };
    const forged = await post(agentUrl(TENANT, stack().tokens.tenantToken('someone-else')), body);
    const unknownTenant = await post(agentUrl('no-such-tenant', 'A'.repeat(43)), body);
    expect(forged).toEqual({
      status: 401,
      type: 'application/problem+json',
      body: { title: 'unauthorized' },
    });
    expect(unknownTenant).toEqual(forged);
    await expect(events(connectionId)).rejects.toThrow();
  });

  it('answers 400 with problem details naming each bad field', async () => {
    const answer = await post(agentUrl(), { message_type: 'party', data: {} });
    expect(answer.status).toBe(400);
    expect(answer.type).toBe('application/problem+json');
    expect(Object.keys(answer.body.errors as object).sort()).toEqual([
      'data.connection_id',
      'message_type',
      'object_id',
    ]);
    expect(await post(agentUrl(), '{not json')).toMatchObject({
      status: 400,
      body: { detail: 'the body is not JSON' },
    });
  });

  it('refuses a body past its limit with 413', async () => {
    const answer = await post(agentUrl(), { message_type: 'verification', padding: 'x'.repeat(70_000) });
    expect(answer).toMatchObject({ status: 413, body: { title: 'payload too large' } });
  });
});
