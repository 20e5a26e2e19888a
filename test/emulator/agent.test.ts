import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { AgentContract } from './openapi-validator';
import { call, useEmulator } from './wire';

describe('emulated earlier agent platform', () => {
  const emulator = useEmulator({ agentKeys: { acme: 'agent-acme', globex: 'agent-globex' } });
  const contract = new AgentContract();
  const agent = (method: string, path: string, body?: unknown, key = 'agent-acme') =>
    call(emulator(), method, `/credentials/v1${path}`, { key, body });

  let receiver: Server;
  let receiverUrl: string;
  const received: Array<{ path: string; body: unknown; contentType: string | undefined }> = [];
  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        received.push({
          path: request.url ?? '',
          body: JSON.parse(text),
          contentType: request.headers['content-type'],
        });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('creates, lists, disables, enables and removes webhooks in the documented shapes', async () => {
    const created = await agent('POST', '/webhooks', { url: `${receiverUrl}/one`, type: 'Notification' });
    expect(created.status).toBe(200);
    expect(contract.check('POST', '/webhooks', created.body)).toEqual([]);
    const id = String(created.json.id);
    expect((await agent('PUT', `/webhooks/${id}/disable`)).status).toBe(200);
    const listed = await agent('GET', '/webhooks');
    expect(contract.check('GET', '/webhooks', listed.body)).toEqual([]);
    expect(listed.body).toContainEqual({
      id,
      url: `${receiverUrl}/one`,
      type: 'Notification',
      enabled: false,
    });
    const enabled = await agent('PUT', `/webhooks/${id}/enable`);
    expect(enabled.status).toBe(200);
    expect(contract.check('PUT', '/webhooks/{webhookId}/enable', enabled.body)).toEqual([]);
    expect((await agent('DELETE', `/webhooks/${id}`)).status).toBe(200);
    expect((await agent('DELETE', `/webhooks/${id}`)).status).toBe(404);
  });

  it('allows at most five Notification webhooks per tenant', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect(
        (
          await agent(
            'POST',
            '/webhooks',
            { url: `${receiverUrl}/g${i}`, type: 'Notification' },
            'agent-globex',
          )
        ).status,
      ).toBe(200);
    }
    const sixth = await agent(
      'POST',
      '/webhooks',
      { url: `${receiverUrl}/g6`, type: 'Notification' },
      'agent-globex',
    );
    expect(sixth.status).toBe(400);
    expect(sixth.json.detail).toContain('at most 5');
  });

  it('rejects a bad url or type with an errors map, and Endorser webhooks as not supported', async () => {
    const bad = await agent('POST', '/webhooks', { url: 'not a url', type: 'Carrier' });
    expect(Object.keys(bad.json.errors).sort()).toEqual(['type', 'url']);
    const endorser = await agent('POST', '/webhooks', { url: `${receiverUrl}/e`, type: 'DelegatedEndorser' });
    expect(endorser.status).toBe(400);
    expect(endorser.json.detail).toContain('not supported');
  });

  it('delivers an injected event to every enabled Notification webhook of the tenant only', async () => {
    received.length = 0;
    const on = await agent('POST', '/webhooks', { url: `${receiverUrl}/on`, type: 'Notification' });
    const off = await agent('POST', '/webhooks', { url: `${receiverUrl}/off`, type: 'Notification' });
    await agent('PUT', `/webhooks/${String(off.json.id)}/disable`);
    const injected = await call(emulator(), 'POST', '/_emulator/agent-events', {
      key: null,
      body: { tenant: 'acme', message_type: 'new_connection', object_id: 'conn-1', connection_id: 'conn-1' },
    });
    expect(injected.status).toBe(200);
    expect(injected.json.deliveries).toEqual([
      { webhookId: on.json.id, url: `${receiverUrl}/on`, status: 204 },
    ]);
    expect(received).toEqual([
      {
        path: '/on',
        contentType: 'application/json',
        body: { message_type: 'new_connection', object_id: 'conn-1', data: { connection_id: 'conn-1' } },
      },
    ]);
  });

  it('serves schemas and verification policies in the documented shapes', async () => {
    const schemas = await agent('GET', '/definitions/schemas');
    expect(contract.check('GET', '/definitions/schemas', schemas.body)).toEqual([]);
    expect(schemas.json[0].id).toMatch(/^did:sov:\w+:2:Employee:1\.0$/);
    const policies = await agent('GET', '/verificationPolicies');
    expect(contract.check('GET', '/verificationPolicies', policies.body)).toEqual([]);
    expect(policies.json[0].revocationRequirement).toEqual({ validNow: true });
  });

  it('the contract rejects a webhook list of the wrong shape', () => {
    expect(contract.check('GET', '/webhooks', [{ id: 1, enabled: 'yes' }])).not.toEqual([]);
  });
});
