import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { type AgentClient } from '../../api/agent/agent-client';
import { NotFoundError } from '../../api/http/errors';
import { type ObservedWebhook } from '../domain/webhook-registry';
import { sameWebhookUrl } from '../domain/webhook-rules';
import { type AgentPlatformDeps } from './deps';
import { classified } from '../../verification/activities/failures';

/**
 * A webhook call answered 404 for a webhook the platform still lists (a gateway's, or a
 * replica's behind): retried as a failed call.
 */
export class RemovalNotAppliedError extends Error {
  override readonly name = 'RemovalNotAppliedError';
}

/** Where a webhook call goes. */
export interface TenantWebhook {
  tenant: string;
  webhookId: string;
}

/** The earlier platform's client of a tenant; a tenant without a key fails for good. */
export function tenantAgentClient(deps: AgentPlatformDeps, tenant: string): AgentClient {
  const client = deps.agent?.clients.clientFor(tenant);
  if (client) return client;
  throw ApplicationFailure.create({
    type: 'AgentTenantUnknown',
    message: `this worker has no key of the earlier platform for tenant ${tenant}: set IDV_AGENT_KEYS`,
    nonRetryable: true,
  });
}

/** The webhook registry's calls to the earlier platform. */
export function agentActivities(deps: AgentPlatformDeps) {
  const signal = () => Context.current().cancellationSignal;
  const clientFor = (tenant: string): AgentClient => tenantAgentClient(deps, tenant);
  const observed = (webhook: ObservedWebhook): ObservedWebhook => ({
    id: webhook.id,
    url: webhook.url,
    type: webhook.type,
    ...(webhook.enabled === undefined ? {} : { enabled: webhook.enabled }),
  });
  /** After a call on the webhook answered 404: throws {@link RemovalNotAppliedError} while the platform lists it. */
  const notAppliedWhileListed = async (client: AgentClient, webhookId: string, operation: string) => {
    const listed = (await client.listWebhooks({ signal: signal() })).some(
      (webhook) => webhook.id === webhookId,
    );
    if (listed)
      throw new RemovalNotAppliedError(
        `${operation} answered 404 while the platform still lists webhook ${webhookId}`,
      );
  };
  return {
    /** ListWebhooks of a tenant. */
    async listTenantWebhooks(tenant: string): Promise<ObservedWebhook[]> {
      const client = clientFor(tenant);
      return await classified(async () => (await client.listWebhooks({ signal: signal() })).map(observed));
    },

    /**
     * CreateWebhook, idempotent by URL: a retry after a lost answer finds the webhook the first
     * attempt made instead of making a second one.
     */
    async ensureTenantWebhook(request: {
      tenant: string;
      url: string;
      type: string;
    }): Promise<ObservedWebhook> {
      const client = clientFor(request.tenant);
      return await classified(async () => {
        const existing = (await client.listWebhooks({ signal: signal() })).find(
          (webhook) => sameWebhookUrl(webhook.url, request.url) && webhook.type === request.type,
        );
        if (existing) return observed(existing);
        return observed(
          await client.createWebhook(
            { url: request.url, type: request.type as 'Notification' },
            { signal: signal() },
          ),
        );
      });
    },

    /**
     * EnableWebhook or DisableWebhook, sent every time: each sets the state (a PUT), so a retry
     * after a lost answer changes nothing, while a list read first may lag (a replica behind)
     * and show the state the webhook is just leaving, which left it there. A 404 counts only
     * when the list, read right after, no longer has the webhook (the interface defines none);
     * a webhook still listed fails the attempt, which is retried.
     */
    async setTenantWebhookEnabled(request: TenantWebhook & { enabled: boolean }): Promise<void> {
      const client = clientFor(request.tenant);
      await classified(async () => {
        try {
          await (request.enabled
            ? client.enableWebhook(request.webhookId, { signal: signal() })
            : client.disableWebhook(request.webhookId, { signal: signal() }));
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          await notAppliedWhileListed(
            client,
            request.webhookId,
            request.enabled ? 'EnableWebhook' : 'DisableWebhook',
          );
          throw error;
        }
      });
    },

    /**
     * RemoveWebhook; one the platform no longer knows counts as removed. The interface defines no
     * 404: one counts only when the platform's list, read right after it, no longer has the
     * webhook (a gateway's or a lagging replica's 404 would leave a webhook live that the
     * registry forgot); a webhook still listed fails the attempt, which is retried.
     */
    async removeTenantWebhook(request: TenantWebhook): Promise<{ removed: boolean }> {
      const client = clientFor(request.tenant);
      return await classified(async () => {
        try {
          await client.removeWebhook(request.webhookId, { signal: signal() });
          return { removed: true };
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          await notAppliedWhileListed(client, request.webhookId, 'RemoveWebhook');
          return { removed: false };
        }
      });
    },

    /** The receiver's URL for the tenant, with its token (the registry keeps it, never shows it). */
    receiverWebhookUrl(tenant: string): Promise<string> {
      const url = deps.agent?.receiverWebhookUrl?.(tenant);
      if (url) return Promise.resolve(url);
      return Promise.reject(
        ApplicationFailure.create({
          type: 'ReceiverNotConfigured',
          message:
            'this worker knows no receiver: set IDV_RECEIVER_URL and IDV_RECEIVER_SECRET, or pass a url',
          nonRetryable: true,
        }),
      );
    },
  };
}
