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
});
