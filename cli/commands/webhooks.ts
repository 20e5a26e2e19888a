import {
  WebhookRegistryClient,
  WebhookRegistryError,
} from '../../agent-platform/client/webhook-registry-client';
import { tenantProblem } from '../../agent-platform/domain/agent-tenants';
import { driftPolicies, type DriftPolicy } from '../../agent-platform/domain/webhook-registry';
import { webhookUrlProblem } from '../../agent-platform/domain/webhook-rules';
import { type WebhookListing, type WebhookView } from '../../agent-platform/shared/messages';
import { type Command, CommandFailedError, UsageError } from '../command';
import { connectTemporal } from '../connect';
import { printJson } from '../output';
import { stringOption } from '../parse-values';

const ACTIONS = ['list', 'add', 'enable', 'disable', 'delete', 'reconcile'] as const;
type Action = (typeof ACTIONS)[number];

/** `idv webhooks`: a tenant's webhooks of the earlier platform, through its registry workflow. */
export const webhooksCommand: Command = {
  name: 'webhooks',
  takesArguments: true,
  summary:
    'List, add, enable, disable or delete a tenant’s webhooks of the earlier platform (through its registry workflow, which also repairs drift)',
  usage:
    'webhooks list | add [--url URL] | enable <id> | disable <id> | delete <id> | reconcile --tenant T [--json]',
  options: {
    tenant: { type: 'string', valueName: 'T', description: 'the tenant (required)' },
    'drift-policy': {
      type: 'string',
      valueName: 'P',
      description: `repair (default) or adopt: what a registry this command starts does with changes made outside it`,
    },
    url: {
      type: 'string',
      valueName: 'URL',
      description: 'add: your own http(s) URL (default: this deployment’s receiver, with the tenant’s token)',
    },
  },
  async run({ positionals, values }, io) {
    const [action, id, ...extra] = positionals;
    if (!ACTIONS.includes(action as Action))
      throw new UsageError(
        'idv webhooks needs list, add, enable <id>, disable <id>, delete <id> or reconcile',
      );
    const needsId = action === 'enable' || action === 'disable' || action === 'delete';
    if (needsId && !id) throw new UsageError(`idv webhooks ${action} needs <id>`);
    const unexpected = needsId ? extra[0] : (id ?? extra[0]);
    if (unexpected !== undefined) throw new UsageError(`unexpected argument '${unexpected}'`);
    const tenant = stringOption(values, 'tenant');
    if (!tenant) throw new UsageError('idv webhooks needs --tenant T');
    const problem = tenantProblem(tenant);
    if (problem) throw new UsageError(`--tenant: ${problem}`);
    const driftPolicy = stringOption(values, 'drift-policy');
    if (driftPolicy !== undefined && !driftPolicies.includes(driftPolicy as DriftPolicy))
      throw new UsageError(`--drift-policy must be one of ${driftPolicies.join(', ')}, got '${driftPolicy}'`);
    const url = stringOption(values, 'url');
    if (url !== undefined && action !== 'add') throw new UsageError('--url goes with add only');
    const urlProblem = url === undefined ? undefined : webhookUrlProblem(url);
    if (urlProblem) throw new UsageError(`--url: ${urlProblem}`);
    const connected = await connectTemporal(io.env);
    try {
      const registry = new WebhookRegistryClient({
        client: connected.idv.client,
        taskQueue: connected.idv.taskQueue,
        ...(driftPolicy ? { settings: { driftPolicy: driftPolicy as DriftPolicy } } : {}),
      });
      const answer = await perform(registry, action as Action, tenant, id ?? '', url).catch(
        (error: unknown) => {
          if (error instanceof WebhookRegistryError) throw new CommandFailedError(error.message);
          throw error;
        },
      );
      if (values.json === true) printJson(io, answer);
      else
        io.stdout.write(`${('webhooks' in answer ? listingLines(answer) : [viewLine(answer)]).join('\n')}\n`);
      // A registry that cannot reach the platform (no key for the tenant, platform down) is a failure to report.
      return 'webhooks' in answer && answer.lastReconcile?.ok === false ? 1 : 0;
    } finally {
      await connected.close();
    }
  },
};

function perform(
  registry: WebhookRegistryClient,
  action: Action,
  tenant: string,
  id: string,
  url: string | undefined,
): Promise<WebhookListing | WebhookView> {
  switch (action) {
    case 'list':
      return registry.list(tenant);
    case 'add':
      return registry.register(tenant, url === undefined ? {} : { url });
    case 'enable':
      return registry.enable(tenant, id);
    case 'disable':
      return registry.disable(tenant, id);
    case 'delete':
      return registry.remove(tenant, id);
    case 'reconcile':
      return registry.reconcile(tenant);
  }
}

function viewLine(view: WebhookView): string {
  const who = view.receiver ? 'receiver' : view.managed ? 'managed' : 'external';
  return `${view.id}  ${view.enabled ? 'enabled ' : 'disabled'}  ${view.type}  ${who.padEnd(8)}  ${view.url}`;
}

function listingLines(listing: WebhookListing): string[] {
  const last = listing.lastReconcile;
  const lines = [
    `tenant ${listing.tenant}: ${listing.webhooks.length} webhook(s), drift policy ${listing.driftPolicy}, ` +
      `last compared ${last ? `${last.at}${last.ok ? '' : ` (failed: ${last.error ?? 'unknown'})`}` : 'never'}`,
    ...listing.webhooks.map(viewLine),
  ];
  for (const drift of listing.drift.slice(-5))
    lines.push(
      `drift ${drift.seenAt}: ${drift.webhookId} ${drift.kind} outside the registry → ${drift.outcome}`,
    );
  return lines;
}
