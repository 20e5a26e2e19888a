import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { paginateRedirectUris } from '../api/identity/pagination';
import { WebhookRegistryClient, WebhookRegistryError } from '../client/webhook-registry-client';
import { type EarlierInventory } from '../domain/migration/migration-plan';
import { coveringRedirectUri } from '../domain/migration/redirect-uris';
import { maskedUrl } from '../domain/webhook-registry';
import { type WebhookListing, type WebhookView } from '../workflows/agent-messages';
import { tenantAgentClient } from './agent-activities';
import { type ActivityDeps } from './deps';
import { classified } from './failures';

/** Bounds of what one migration reads (its report is one Temporal payload). */
export const migrationLimits = { schemas: 500, policies: 500, redirectUris: 10_000 };

/** Where a webhook call of the cut-over goes. */
export interface CutOverWebhook {
  tenant: string;
  webhookId: string;
}

const HEARTBEAT_EVERY_MS = 2_000;

/**
 * Runs `body` while heartbeating: a worker that dies mid-call is noticed within the heartbeat
 * timeout, not the whole start-to-close timeout, and the retry finds what the call did.
 */
async function heartbeating<T>(body: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const ticker = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await body();
  } finally {
    clearInterval(ticker);
  }
}

/**
 * A webhook URL as reports show it: the receiver's token, credentials and query (where URLs
 * of one's own often carry a secret) hidden.
 */
export function reportedUrl(raw: string): string {
  const masked = maskedUrl({ url: raw, receiver: false });
  try {
    const url = new URL(masked);
    url.username = '';
    url.password = '';
    if (url.search) url.search = '?****';
    return url.href;
  } catch {
    return masked;
  }
}

function tooMany(what: string, limit: number): never {
  throw ApplicationFailure.create({
    type: 'MigrationTooLarge',
    message: `more than ${limit} ${what}: migrate this tenant in parts`,
    nonRetryable: true,
  });
}

/** The migration's calls: reads of both platforms, idempotent writes, the cut-over through the registry. */
export function migrationActivities(deps: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;
  const registry = () => {
    const context = Context.current();
    return new WebhookRegistryClient({ client: context.client, taskQueue: context.info.taskQueue });
  };
  // The registry already retried the platform; its refusal is final for this attempt's plan.
  const throughRegistry = async <T>(body: () => Promise<T>): Promise<T> => {
    try {
      return await heartbeating(body);
    } catch (error) {
      if (error instanceof WebhookRegistryError)
        throw ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
      throw error;
    }
  };
  const registeredUris = async (): Promise<string[]> => {
    const uris: string[] = [];
    for await (const { uri } of paginateRedirectUris(
      deps.identity.redirectUris,
      { pageSize: 100 },
      { signal: signal() },
    )) {
      uris.push(uri);
      if (uris.length > migrationLimits.redirectUris)
        tooMany('registered redirect URIs', migrationLimits.redirectUris);
    }
    return uris;
  };
  const gone = (request: CutOverWebhook): never => {
    throw ApplicationFailure.create({
      type: 'WebhookGone',
      message: `webhook ${request.webhookId} of ${request.tenant} is no longer on the earlier platform`,
      nonRetryable: true,
    });
  };
  // A webhook made outside the registry since its last comparison is not in its list yet.
  const findView = async (request: CutOverWebhook): Promise<WebhookView> => {
    const find = (listing: WebhookListing) => listing.webhooks.find((w) => w.id === request.webhookId);
    return (
      find(await registry().list(request.tenant)) ??
      find(await registry().reconcile(request.tenant)) ??
      gone(request)
    );
  };

  return {
    /** A tenant's webhooks (the receiver's token hidden), schemas and policies on the earlier platform. */
    async inventoryEarlierPlatform(tenant: string): Promise<EarlierInventory> {
      const client = tenantAgentClient(deps, tenant);
      return await classified(async () => {
        const options = { signal: signal() };
        const [webhooks, schemas, policies] = await Promise.all([
          client.listWebhooks(options),
          client.listSchemas(options),
          client.listVerificationPolicies(options),
        ]);
        if (schemas.length > migrationLimits.schemas) tooMany('schemas', migrationLimits.schemas);
        if (policies.length > migrationLimits.policies) tooMany('policies', migrationLimits.policies);
        return {
          webhooks: webhooks.map((webhook) => ({
            id: webhook.id,
            url: reportedUrl(webhook.url),
            type: webhook.type,
            // The platform's list may leave it out: only enabled webhooks are called, and one
            // never disabled is enabled.
            enabled: webhook.enabled ?? true,
          })),
          schemas: schemas.map(({ id, name, version, attributeNames }) => ({
            id,
            name,
            version,
            attr_names: attributeNames,
          })),
          policies: policies.map(
            ({ policyId, name, version, attributes, predicates, revocationRequirement }) => ({
              policyId,
              name,
              version,
              attributes: attributes.map(({ policyName, attributeNames, restrictions }) => ({
                policyName,
                attributeNames,
                restrictions: restrictions ?? [],
              })),
              predicates,
              ...(revocationRequirement ? { revocationRequirement } : {}),
            }),
          ),
        };
      });
    },

    /** The redirect URIs registered on the current API (every page). */
    async listRedirectUris(): Promise<string[]> {
      return await classified(() => heartbeating(registeredUris));
    },

    /**
     * Registers a redirect URI unless one registered already allows it: a retry after a lost
     * answer (or a crash) finds the first attempt's URI instead of adding a second.
     */
    async ensureRedirectUri(uri: string): Promise<{ action: 'registered' | 'exists'; coveredBy?: string }> {
      return await classified(() =>
        heartbeating(async () => {
          const coveredBy = coveringRedirectUri(uri, await registeredUris());
          if (coveredBy) return { action: 'exists', coveredBy };
          await deps.identity.redirectUris.add(uri, { signal: signal() });
          return { action: 'registered' };
        }),
      );
    },

    /**
     * Disables an earlier webhook through the tenant's registry: one made outside it is taken
     * over first (found by its URL, never made twice). One already disabled is left alone, so a
     * retry changes nothing twice.
     */
    async disableEarlierWebhook(request: CutOverWebhook): Promise<'disabled' | 'already-disabled'> {
      return await throughRegistry(async (): Promise<'disabled' | 'already-disabled'> => {
        let view = await findView(request);
        if (!view.enabled) return 'already-disabled';
        if (!view.managed) {
          const client = tenantAgentClient(deps, request.tenant);
          const webhook = (await classified(() => client.listWebhooks({ signal: signal() }))).find(
            (w) => w.id === request.webhookId,
          );
          if (!webhook) return gone(request);
          view = await registry().register(request.tenant, { url: webhook.url, type: webhook.type });
        }
        await registry().disable(request.tenant, view.id);
        return 'disabled';
      });
    },

    /** Enables again a webhook the cut-over disabled (compensation); one enabled already is left alone. */
    async enableEarlierWebhook(request: CutOverWebhook): Promise<'re-enabled'> {
      return await throughRegistry(async (): Promise<'re-enabled'> => {
        const view = await findView(request);
        if (!view.enabled) await registry().enable(request.tenant, view.id);
        return 're-enabled';
      });
    },
  };
}
