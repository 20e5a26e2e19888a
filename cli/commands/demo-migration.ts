import { type Client } from '@temporalio/client';
import { type MigrationReport } from '../../agent-platform/domain/migration/migration-report';
import { type EmbeddedStack } from '../../workers/dev/embedded-stack';
import { MigrationClient } from '../../agent-platform/client/migration-client';
import { WebhookRegistryClient } from '../../agent-platform/client/webhook-registry-client';

/** Writes the emulator counts, to show a dry run writes nothing. */
const WRITES = ['CreateWebhook', 'EnableWebhook', 'DisableWebhook', 'RemoveWebhook', 'AddRedirectUri'];

/**
 * The migration part of `idv demo`: a tenant with the receiver's webhook is migrated as a dry run
 * (no write at the emulator), then applied (its redirect URI registered, its webhook disabled),
 * then applied again (nothing left to do).
 */
export async function demoMigration(
  stack: EmbeddedStack,
  client: Client,
  taskQueue: string,
  record: (scenario: string, expected: string, got: string) => void,
): Promise<void> {
  const tenant = Object.keys(stack.emulator.agentKeys)[0] ?? 'tenant-1';
  const store = stack.emulator.store;
  const writes = () =>
    WRITES.reduce((sum, operation) => sum + (store.counters.byOperation.get(operation) ?? 0), 0);
  const registry = new WebhookRegistryClient({ client, taskQueue });
  const webhook = await registry.register(tenant);
  const migrations = new MigrationClient({ client, taskQueue });
  const input = (apply: boolean) => ({
    tenant,
    apply,
    target: {
      authUrl: `${stack.emulator.baseUrl}/ecosystem`,
      schemaBaseUrl: `${stack.emulator.baseUrl}/schemas`,
      clientId: 'demo-client',
      ecosystem: 'demo',
      redirectUri: `${stack.info.receiverUrl ?? 'http://127.0.0.1'}/verified/${tenant}/{policy}`,
    },
  });
  const line = (report: MigrationReport) =>
    `${report.outcome}: ${report.templates.length} templates, ${report.authorizeRequests.length} authorize request(s), ` +
    `${report.redirectUris.map((uri) => uri.action).join('/')} redirect URI, ${report.webhooks.map((w) => w.action).join('/')} webhook`;

  const before = writes();
  const dry = await migrations.run(input(false));
  record(
    'migration dry run writes nothing',
    'planned, 0 writes',
    `${dry.outcome}, ${writes() - before} writes`,
  );
  const applied = await migrations.run(input(true));
  const disabled = store.webhooks.get(webhook.id)?.enabled === false;
  record(
    'migration apply',
    'applied: 2 templates, 1 authorize request(s), registered redirect URI, disabled webhook',
    line(applied).replace(/^applied/, disabled ? 'applied' : 'applied (webhook still enabled)'),
  );
  const again = await migrations.run(input(true));
  record('migration applied again', 'unchanged', again.outcome);
  await registry.remove(tenant, webhook.id);
}
