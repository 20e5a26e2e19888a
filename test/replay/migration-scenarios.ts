import { createAgentClient } from '../../api/agent/agent-client';
import { MigrationClient } from '../../agent-platform/client/migration-client';
import { agentWebhooksWorkflowId } from '../../agent-platform/domain/agent-tenants';
import { type Scenario } from './scenarios';

/** A migration applied whose cut-over fails part way: every step, and the compensation. */
export const migrationScenarios: Scenario[] = [
  {
    name: 'migration-rolled-back',
    roles: ['migration'],
    async run({ idv, agent, control }) {
      const platform = createAgentClient(agent);
      const made = [];
      for (const name of ['crm', 'erp'])
        made.push(
          await platform.createWebhook({ url: `https://hooks.example/${name}`, type: 'Notification' }),
        );
      await control('PUT', '/faults', {
        operation: 'DisableWebhook',
        skip: 1,
        errorRate: 1,
        errorStatus: 403,
        count: 1,
      });
      const migrations = new MigrationClient({ client: idv.client, taskQueue: idv.taskQueue });
      const { handle } = await migrations.start({
        tenant: 'tenant-1',
        apply: true,
        target: {
          authUrl: 'https://auth.example',
          schemaBaseUrl: 'https://schemas.example',
          clientId: 'replay',
          ecosystem: 'replay',
          redirectUri: 'https://replay.example/verified/{policy}',
        },
      });
      const report = await migrations.result(handle);
      if (report.outcome !== 'rolled-back') throw new Error(`expected rolled-back, got ${report.outcome}`);
      await control('DELETE', '/faults');
      await idv.client.workflow
        .getHandle(agentWebhooksWorkflowId('tenant-1'))
        .terminate('recorded')
        .catch(() => undefined);
      for (const webhook of made) await platform.removeWebhook(webhook.id);
      await platform.close();
      return { migration: { workflowId: handle.workflowId } };
    },
  },
];
