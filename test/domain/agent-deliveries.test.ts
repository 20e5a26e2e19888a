import {
  connectionWorkflowId,
  deliveryKey,
  InvalidDeliveryError,
  parseAgentDelivery,
} from '../../agent-platform/domain/agent-deliveries';

// What the receiver accepts from the earlier platform's Notification webhooks.
describe('agent deliveries', () => {
  it.each([
    [{ message_type: 'new_connection', object_id: 'c-1', data: { connection_id: 'conn-1' } }],
    [{ message_type: 'verification', object_id: 'v-9', data: { ConnectionId: 'conn-1' }, extra: true }],
  ])('normalises %j', (body) => {
    const delivery = parseAgentDelivery(body);
    expect(delivery).toMatchObject({ connectionId: 'conn-1' });
    expect(connectionWorkflowId('acme', delivery.connectionId)).toBe('idv-connection-acme-conn-1');
  });

  it('keys a repeated delivery the same, another event differently', () => {
    const body = { message_type: 'credential_request', object_id: 'o-1', data: { connection_id: 'c' } };
    expect(deliveryKey(parseAgentDelivery(body))).toBe(deliveryKey(parseAgentDelivery({ ...body })));
    expect(deliveryKey(parseAgentDelivery({ ...body, object_id: 'o-2' }))).not.toBe(
      deliveryKey(parseAgentDelivery(body)),
    );
  });

  it.each([
    [{ message_type: 'spam', object_id: 'o', data: { connection_id: 'c' } }, 'message_type'],
    [{ message_type: 'verification', data: { connection_id: 'c' } }, 'object_id'],
    [{ message_type: 'verification', object_id: 'o', data: {} }, 'data.connection_id'],
    [{ message_type: 'verification', object_id: 'o', data: { connection_id: '../x' } }, 'data.connection_id'],
    [null, '(body)'],
  ])('refuses %j naming %s, without quoting the body', (body, field) => {
    const error = (() => {
      try {
        parseAgentDelivery(body);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidDeliveryError);
    expect(Object.keys((error as InvalidDeliveryError).errors)).toContain(field);
    expect((error as Error).message).not.toContain('spam');
  });
});
