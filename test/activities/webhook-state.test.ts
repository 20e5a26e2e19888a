import { MockActivityEnvironment } from '@temporalio/testing';
import { agentActivities } from '../../agent-platform/activities/agent-activities';
import { type AgentPlatformDeps } from '../../agent-platform/activities/deps';
import { mockService } from '../api/mock-service';

// The platform's list may lag behind its writes (a replica behind): the webhook registry and the
// migration's rollback set a webhook's state right after another write changed it.
describe("setting a webhook's state at the earlier platform", () => {
  const webhook = { id: 'wh-1', url: 'https://old.example/hook', type: 'Notification' };

  it.each([
    [true, 'enable', false],
    [false, 'disable', true],
  ])(
    'sends the write (enabled: %s) although a lagging list shows the webhook so already',
    async (enabled, verb, shown) => {
      const service = mockService();
      // The list a replica behind answers: the state the webhook is just leaving.
      service.pool
        .intercept({ method: 'GET', path: '/credentials/v1/webhooks' })
        .reply(200, [{ ...webhook, enabled: !shown }], { headers: { 'content-type': 'application/json' } })
        .persist();
      service.answer({ method: 'PUT', path: `/credentials/v1/webhooks/${webhook.id}/${verb}` }, 200);
      const deps = {
        agent: { clients: { clientFor: () => service.earlier } },
      } as unknown as AgentPlatformDeps;
      const activities = agentActivities(deps);
      try {
        await new MockActivityEnvironment().run(
          (request: Parameters<typeof activities.setTenantWebhookEnabled>[0]) =>
            activities.setTenantWebhookEnabled(request),
          { tenant: 'tenant-1', webhookId: webhook.id, enabled },
        );
        // Before, the list's answer made it send nothing, and the webhook stayed as it was.
        expect(service.seen.map((request) => `${request.method} ${request.path}`)).toEqual([
          `PUT /credentials/v1/webhooks/${webhook.id}/${verb}`,
        ]);
      } finally {
        await service.earlier.close();
        await service.agent.close();
      }
    },
  );

  it('retries a write answered 404 while the platform still lists the webhook, and fails it once it does not', async () => {
    const service = mockService();
    const put = { method: 'PUT', path: `/credentials/v1/webhooks/${webhook.id}/enable` };
    const list = { method: 'GET', path: '/credentials/v1/webhooks' };
    // A gateway's 404: the webhook is there.
    service.answer(put, 404, { title: 'not found' });
    service.answer(list, 200, [{ ...webhook, enabled: false }]);
    // Removed since: the 404 is believed.
    service.answer(put, 404, { title: 'not found' });
    service.answer(list, 200, []);
    const deps = { agent: { clients: { clientFor: () => service.earlier } } } as unknown as AgentPlatformDeps;
    const activities = agentActivities(deps);
    const enable = () =>
      new MockActivityEnvironment()
        .run(
          (request: Parameters<typeof activities.setTenantWebhookEnabled>[0]) =>
            activities.setTenantWebhookEnabled(request),
          { tenant: 'tenant-1', webhookId: webhook.id, enabled: true },
        )
        .catch((error: unknown) => error);
    try {
      // Before, the 404 failed the write for good, the webhook left disabled.
      expect(await enable()).toMatchObject({ name: 'RemovalNotAppliedError' });
      expect(await enable()).toMatchObject({ type: 'NotFoundError', nonRetryable: true });
    } finally {
      await service.earlier.close();
      await service.agent.close();
    }
  });
});
