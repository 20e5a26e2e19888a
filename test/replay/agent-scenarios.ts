import { WebhookRegistryClient } from '../../agent-platform/client/webhook-registry-client';
import { createAgentClient } from '../../api/agent/agent-client';
import { agentWebhooksWorkflowId } from '../../agent-platform/domain/agent-tenants';
import { connectionWorkflowId, onboardingWorkflowId } from '../../agent-platform/domain/agent-deliveries';
import { type agentConnection } from '../../agent-platform/workflows/agent-connection';
import { type onboarding } from '../../agent-platform/workflows/onboarding';
import { type AgentEvent, agentEventSignal } from '../../agent-platform/shared/messages';
import { type Scenario } from './scenarios';

const event = (connectionId: string, objectId: string): AgentEvent => ({
  tenant: 'tenant-1',
  connectionId,
  messageType: 'verification',
  objectId,
  receivedAt: '2026-11-23T00:00:00.000Z',
});

/** The earlier platform's workflows: a tenant's registry through drift, a connection's events, an onboarding. */
export const agentScenarios: Scenario[] = [
  {
    name: 'webhook-registry-drift',
    roles: ['registry'],
    async run({ idv, agent }) {
      const registry = new WebhookRegistryClient({ client: idv.client, taskQueue: idv.taskQueue });
      const kept = await registry.register('tenant-1', { url: 'https://hooks.example/kept' });
      // The first run is recorded: the recorder's low history limit makes the registry continue as new.
      const { runId } = await idv.client.workflow.getHandle(agentWebhooksWorkflowId('tenant-1')).describe();
      const deleted = await registry.register('tenant-1', { url: 'https://hooks.example/deleted' });
      await registry.register('tenant-1');
      await registry.disable('tenant-1', kept.id);
      const platform = createAgentClient(agent);
      await platform.removeWebhook(deleted.id);
      await platform.enableWebhook(kept.id);
      await platform.close();
      await registry.reconcile('tenant-1');
      await registry.remove('tenant-1', kept.id);
      const handle = idv.client.workflow.getHandle(agentWebhooksWorkflowId('tenant-1'));
      await handle.terminate('recorded');
      return { registry: { workflowId: handle.workflowId, runId } };
    },
  },
  {
    name: 'connection-events',
    roles: ['connection'],
    async run({ idv }, reference) {
      const connectionId = `conn-${reference}`;
      const handle = await idv.client.workflow.signalWithStart<typeof agentConnection, [AgentEvent]>(
        'agentConnection',
        {
          workflowId: connectionWorkflowId('tenant-1', connectionId),
          taskQueue: idv.taskQueue,
          args: [{ tenant: 'tenant-1', connectionId, idleTimeoutMs: 1_000 }],
          signal: agentEventSignal,
          signalArgs: [event(connectionId, 'o-1')],
        },
      );
      await handle.signal(agentEventSignal, event(connectionId, 'o-2'));
      await handle.signal(agentEventSignal, event(connectionId, 'o-1'));
      await handle.result();
      return { connection: { workflowId: handle.workflowId } };
    },
  },
  {
    name: 'onboarding-verified',
    roles: ['onboarding'],
    async run({ idv, profileId }, reference) {
      const connectionId = `conn-${reference}`;
      const handle = await idv.client.workflow.signalWithStart<typeof onboarding, [AgentEvent]>(
        'onboarding',
        {
          workflowId: onboardingWorkflowId('tenant-1', connectionId),
          taskQueue: idv.taskQueue,
          args: [
            {
              tenant: 'tenant-1',
              connectionId,
              waitFor: ['new_connection', 'credential_request'],
              verification: {
                verificationProfileId: profileId,
                provider: 'yoti',
                capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
                redactAfter: 'never',
              },
            },
          ],
          signal: agentEventSignal,
          signalArgs: [{ ...event(connectionId, 'o-1'), messageType: 'new_connection' }],
        },
      );
      await handle.signal(agentEventSignal, { ...event(connectionId, 'o-1'), messageType: 'new_connection' });
      await handle.signal(agentEventSignal, {
        ...event(connectionId, 'o-2'),
        messageType: 'credential_request',
      });
      await handle.result();
      return { onboarding: { workflowId: handle.workflowId } };
    },
  },
];
