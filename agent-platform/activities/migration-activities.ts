import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { paginateRedirectUris } from '../../api/identity/pagination';
import { WebhookRegistryClient, WebhookRegistryError } from '../client/webhook-registry-client';
import { randomUUID } from 'node:crypto';
import {
  type EarlierInventory,
  type InventoryWebhook,
  type MigrationPlan,
  type MigrationTarget,
  planMigration,
} from '../domain/migration/migration-plan';
import { type RedirectUriReport } from '../domain/migration/migration-report';
import { coveringRedirectUri } from '../domain/migration/redirect-uris';
import { maskedUrl } from '../domain/webhook-registry';
import { sameWebhookUrl, webhookRegistrationProblem } from '../domain/webhook-rules';
import { type WebhookListing, type WebhookView } from '../shared/messages';
import { tenantAgentClient } from './agent-activities';
import { type AgentPlatformDeps } from './deps';
import { classified } from '../../verification/activities/failures';

/**
 * Bounds of one migration: its plan and report are Temporal payloads (at most 2 MB each), so a
 * plan larger than `planBytes` is refused before anything is changed.
 */
export const migrationLimits = { schemas: 500, policies: 500, redirectUris: 10_000, planBytes: 800_000 };

/** A tenant's plan, as the migration workflow gets it. */
export interface TenantPlan {
  plan: MigrationPlan;
  webhooks: InventoryWebhook[];
  /** What stops an apply (reported by a dry run): nothing is changed while any remains. */
  blockers: string[];
}

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

/** Two earlier webhooks of one URL: the registry, which tells webhooks apart by URL, could take the wrong one over. */
const sameUrlProblem = (webhookId: string, otherId: string) =>
  `webhooks ${webhookId} and ${otherId} have the same URL: delete one (idv webhooks delete) before migrating`;

function tooMany(what: string, limit: number): never {
  throw ApplicationFailure.create({
    type: 'MigrationTooLarge',
    message: `more than ${limit} ${what}: migrate this tenant in parts`,
    nonRetryable: true,
  });
}

/** The migration's calls: reads of both platforms, idempotent writes, the cut-over through the registry. */
export function migrationActivities(deps: AgentPlatformDeps) {
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
  const find = (request: CutOverWebhook, listing: WebhookListing) =>
    listing.webhooks.find((w) => w.id === request.webhookId);
  // A webhook made outside the registry since its last comparison is not in its list yet.
  const findView = async (request: CutOverWebhook): Promise<WebhookView> =>
    find(request, await registry().list(request.tenant)) ?? (await comparedView(request));
  /**
   * The webhook as the platform has it now: the registry compares first (and repairs or adopts
   * its drift). A comparison that could not list the platform answers the registry's memory, and
   * a failed repair of this webhook found enabled leaves it enabled, not disabled as listed: both
   * fail the attempt (retried). Other repairs (a move, a re-creation) leave its state as listed.
   */
  const comparedView = async (request: CutOverWebhook): Promise<WebhookView> => {
    const listing = await registry().reconcile(request.tenant, { signal: signal() });
    const compared = listing.lastReconcile;
    if (compared?.ok !== true)
      throw new Error(
        `the registry could not compare with the platform: ${compared?.error ?? 'no comparison'}`,
      );
    const repair = listing.drift.find(
      (drift) =>
        drift.webhookId === request.webhookId &&
        drift.kind === 'enabled' &&
        drift.seenAt === compared.at &&
        drift.outcome.startsWith('repair failed'),
    );
    if (repair)
      throw new Error(`the registry could not bring the webhook back to its state: ${repair.outcome}`);
    return find(request, listing) ?? gone(request);
  };

  const inventoryOf = async (
    tenant: string,
  ): Promise<{ inventory: EarlierInventory; blockers: string[] }> => {
    const client = tenantAgentClient(deps, tenant);
    const options = { signal: signal() };
    // Each list may take up to the HTTP client's timeout, longer than the heartbeat timeout.
    const [webhooks, schemas, policies] = await classified(() =>
      heartbeating(() =>
        Promise.all([
          client.listWebhooks(options),
          client.listSchemas(options),
          client.listVerificationPolicies(options),
        ]),
      ),
    );
    if (schemas.length > migrationLimits.schemas) tooMany('schemas', migrationLimits.schemas);
    if (policies.length > migrationLimits.policies) tooMany('policies', migrationLimits.policies);
    // Two earlier webhooks of one URL: the registry tells webhooks apart by URL, so it could take
    // the wrong one over. Said before anything changes.
    const blockers = webhooks.flatMap((webhook, index) =>
      webhooks
        .slice(index + 1)
        .filter((other) => sameWebhookUrl(other.url, webhook.url))
        .map((other) => sameUrlProblem(webhook.id, other.id)),
    );
    // The cut-over disables every enabled webhook through the registry, taking over those made
    // outside it: one the registry would refuse would fail the cut-over after others were
    // disabled. Said before anything changes.
    for (const webhook of webhooks) {
      const problem = webhookRegistrationProblem(webhook, []);
      if ((webhook.enabled ?? true) && problem)
        blockers.push(
          `webhook ${webhook.id} (${webhook.type}) cannot be disabled through the webhook registry (${problem}): disable or delete it on the earlier platform before migrating`,
        );
    }
    const inventory: EarlierInventory = {
      webhooks: webhooks.map((webhook) => ({
        id: webhook.id,
        url: maskedUrl({ url: webhook.url, receiver: false }),
        type: webhook.type,
        // The platform's list may leave it out: only enabled webhooks are called, and one never
        // disabled is enabled.
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
    return { inventory, blockers };
  };

  return {
    /**
     * Reads the tenant's webhooks, schemas and policies from the earlier platform and converts
     * them into the plan. In an activity, not the workflow: the plan is recorded in history, so
     * a converter changed by a deploy never changes what a running migration does.
     */
    async planTenantMigration(request: { tenant: string; target: MigrationTarget }): Promise<TenantPlan> {
      const inventory = await inventoryOf(request.tenant);
      const plan = planMigration(inventory.inventory, request.target, () => randomUUID());
      const bytes = Buffer.byteLength(JSON.stringify(plan));
      if (bytes > migrationLimits.planBytes)
        throw ApplicationFailure.create({
          type: 'MigrationTooLarge',
          message: `the plan would be ${bytes} bytes (at most ${migrationLimits.planBytes}): migrate this tenant in parts`,
          nonRetryable: true,
        });
      return { plan, webhooks: inventory.inventory.webhooks, blockers: inventory.blockers };
    },

    /** Which of `uris` a registered redirect URI already allows (read here, so the decision is in history). */
    async classifyRedirectUris(uris: string[]): Promise<RedirectUriReport[]> {
      return await classified(() =>
        heartbeating(async () => {
          const registered = await registeredUris();
          return uris.map((uri): RedirectUriReport => {
            const coveredBy = coveringRedirectUri(uri, registered);
            return coveredBy ? { uri, action: 'exists', coveredBy } : { uri, action: 'register' };
          });
        }),
      );
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
     * retry changes nothing twice; a retry (an earlier attempt's answer lost) that finds it
     * disabled counts it as its own.
     */
    async disableEarlierWebhook(request: CutOverWebhook): Promise<'disabled' | 'already-disabled'> {
      const retried = Context.current().info.attempt > 1;
      return await throughRegistry(async (): Promise<'disabled' | 'already-disabled'> => {
        let view = await findView(request);
        // The registry's memory is as old as its last comparison: a webhook enabled at the
        // platform since (by hand, or by drift it adopts) would be left delivering. Disabled
        // counts only as the platform has it now.
        if (!view.enabled) view = await comparedView(request);
        if (!view.enabled) return retried ? 'disabled' : 'already-disabled';
        if (!view.managed) {
          const client = tenantAgentClient(deps, request.tenant);
          const listed = await classified(() => client.listWebhooks({ signal: signal() }));
          const webhook = listed.find((w) => w.id === request.webhookId);
          if (!webhook) return gone(request);
          // One made at the same URL since the plan: the take-over, by URL, could register the
          // other one and leave this one delivering.
          const other = listed.find((w) => w.id !== webhook.id && sameWebhookUrl(w.url, webhook.url));
          if (other)
            throw ApplicationFailure.create({
              type: 'WebhookAmbiguous',
              message: sameUrlProblem(webhook.id, other.id),
              nonRetryable: true,
            });
          // An attempt that ended (timed out, its worker gone) may have left its take-over queued
          // in the registry: every attempt asks under one update ID, so a retry joins it.
          const { workflowExecution: run, activityId } = Context.current().info;
          const updateId = `take-over/${run?.workflowId ?? ''}/${run?.runId ?? ''}/${activityId}`;
          view = await registry().register(
            request.tenant,
            { url: webhook.url, type: webhook.type },
            { updateId, signal: signal() },
          );
        }
        // An attempt that timed out (a busy registry) or was cancelled is told so by its next
        // heartbeat, and Temporal's client calls made in it (the registry's) end then: no write
        // follows that could land after the compensation's enable.
        await registry().disable(request.tenant, view.id, { signal: signal() });
        return 'disabled';
      });
    },

    /**
     * Enables again a webhook the cut-over touched (compensation). A managed one is always sent
     * the update: it queues behind a disable the registry may still be carrying out, which a
     * look at its state would miss.
     */
    async enableEarlierWebhook(request: CutOverWebhook): Promise<'re-enabled'> {
      return await throughRegistry(async (): Promise<'re-enabled'> => {
        const view = await findView(request);
        if (view.managed || !view.enabled)
          await registry().enable(request.tenant, view.id, { signal: signal() });
        return 're-enabled';
      });
    },
  };
}
