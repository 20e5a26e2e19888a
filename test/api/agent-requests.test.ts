import { ValidationError } from '../../api/http/errors';
import { type mockService, useMockService } from './mock-service';

const hook = { id: 'wh-1', url: 'https://app.example/hooks/t1', type: 'Notification', enabled: true };

describe('earlier agent platform client', () => {
  const mock = useMockService();
  let service: ReturnType<typeof mockService>;
  beforeEach(() => {
    service = mock();
  });

  it('lists webhooks with GET /credentials/v1/webhooks', async () => {
    service.answer({ method: 'GET', path: '/credentials/v1/webhooks' }, 200, [hook]);
    await expect(service.earlier.listWebhooks()).resolves.toEqual([hook]);
  });

  it('creates a webhook from {url, type, parameters}', async () => {
    service.answer({ method: 'POST', path: '/credentials/v1/webhooks' }, 200, hook);
    await expect(
      service.earlier.createWebhook({ url: hook.url, type: 'Notification', parameters: '{}' }),
    ).resolves.toEqual(hook);
    expect(service.seen[0]?.body).toEqual({ url: hook.url, type: 'Notification', parameters: '{}' });
  });

  it('enables, disables and removes a webhook by id', async () => {
    service.answer({ method: 'PUT', path: '/credentials/v1/webhooks/wh-1/enable' }, 200);
    service.answer({ method: 'PUT', path: '/credentials/v1/webhooks/wh-1/disable' }, 200);
    service.answer({ method: 'DELETE', path: '/credentials/v1/webhooks/wh-1' }, 200);
    await service.earlier.enableWebhook('wh-1');
    await service.earlier.disableWebhook('wh-1');
    await service.earlier.removeWebhook('wh-1');
    expect(service.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /credentials/v1/webhooks/wh-1/enable',
      'PUT /credentials/v1/webhooks/wh-1/disable',
      'DELETE /credentials/v1/webhooks/wh-1',
    ]);
  });

  it('reads schemas and verification policies for the migration', async () => {
    const schema = {
      id: 'did:sov:abc:2:employee:1.0',
      name: 'employee',
      version: '1.0',
      attributeNames: ['name', 'title'],
    };
    const policy = {
      policyId: 'pol-1',
      name: 'employee check',
      version: '1.0',
      attributes: [
        { policyName: 'employee', attributeNames: ['name'], restrictions: [{ issuerDid: 'did:sov:abc' }] },
      ],
      predicates: [],
      revocationRequirement: { validNow: true },
    };
    service.answer({ method: 'GET', path: '/credentials/v1/definitions/schemas' }, 200, [schema]);
    service.answer({ method: 'GET', path: '/credentials/v1/verificationPolicies' }, 200, [policy]);
    await expect(service.earlier.listSchemas()).resolves.toEqual([{ ...schema }]);
    await expect(service.earlier.listVerificationPolicies()).resolves.toMatchObject([policy]);
  });

  it('rejects a relative webhook url and an unknown type before sending', async () => {
    const error: unknown = await service.earlier
      // @ts-expect-error: an unknown type, as an untyped caller could send it
      .createWebhook({ url: 'hooks/t1', type: 'Carrier' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(Object.keys((error as ValidationError).errors).sort()).toEqual(['type', 'url']);
    expect(service.seen).toEqual([]);
  });
});
