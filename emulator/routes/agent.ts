import { ok, type RequestContext, type Route } from '../http/context';
import { badRequest, forbidden, invalid, notFound } from '../http/problems';
import { jsonBody, requiredString } from '../http/validate';
import { type WebhookRecord } from '../state/model';
import { tenantOf } from './scope';

/** At most this many Notification webhooks per tenant (interface, part 8). */
export const MAX_NOTIFICATION_WEBHOOKS = 5;
const PREFIX = '/credentials/v1';
const WEBHOOK_TYPES = ['Notification', 'DelegatedEndorser', 'Zapier'];

function webhookToWire(webhook: WebhookRecord) {
  return { id: webhook.id, url: webhook.url, type: webhook.type, enabled: webhook.enabled };
}

function webhookOf(context: RequestContext): WebhookRecord {
  const tenant = tenantOf(context);
  const id = context.params.webhookId ?? '';
  const webhook = context.store.webhooks.get(id);
  if (!webhook) notFound(`Webhook '${id}' was not found.`);
  if (webhook.tenant !== tenant) forbidden('The webhook belongs to another tenant.');
  return webhook;
}

function setEnabled(enabled: boolean) {
  return (context: RequestContext) => {
    webhookOf(context).enabled = enabled;
    return { status: 200 };
  };
}

/** Webhooks, schemas and verification policies of the earlier agent platform. */
export const agentRoutes: Route[] = [
  {
    method: 'GET',
    pattern: `${PREFIX}/webhooks`,
    operation: 'ListWebhooks',
    scope: 'agent',
    handle(context) {
      const tenant = tenantOf(context);
      return ok([...context.store.webhooks.values()].filter((w) => w.tenant === tenant).map(webhookToWire));
    },
  },
  {
    method: 'POST',
    pattern: `${PREFIX}/webhooks`,
    operation: 'CreateWebhook',
    scope: 'agent',
    handle(context) {
      const tenant = tenantOf(context);
      const body = jsonBody(context);
      const errors: Record<string, string[]> = {};
      const url = requiredString(body, 'url', errors);
      if (url && !/^https?:\/\/[^\s]+$/i.test(url))
        errors.url = ['The url must be an absolute http or https URL.'];
      const type = requiredString(body, 'type', errors);
      if (type && !WEBHOOK_TYPES.includes(type)) errors.type = [`The value '${type}' is not valid.`];
      if (body.parameters !== undefined && body.parameters !== null && typeof body.parameters !== 'string') {
        errors.parameters = ['The field parameters must be a string.'];
      }
      if (Object.keys(errors).length > 0) invalid(errors);
      if (type !== 'Notification')
        badRequest(`${type} webhooks are not supported for your configuration (coming soon).`);
      const existing = [...context.store.webhooks.values()].filter(
        (w) => w.tenant === tenant && w.type === 'Notification',
      );
      if (existing.length >= MAX_NOTIFICATION_WEBHOOKS) {
        badRequest(`A tenant can register at most ${MAX_NOTIFICATION_WEBHOOKS} Notification webhooks.`);
      }
      const webhook: WebhookRecord = {
        id: context.store.random.uuid(),
        tenant,
        url,
        type,
        enabled: true,
        ...(typeof body.parameters === 'string' ? { parameters: body.parameters } : {}),
      };
      context.store.webhooks.set(webhook.id, webhook);
      return ok(webhookToWire(webhook));
    },
  },
  {
    method: 'PUT',
    pattern: `${PREFIX}/webhooks/:webhookId/enable`,
    operation: 'EnableWebhook',
    scope: 'agent',
    handle: setEnabled(true),
  },
  {
    method: 'PUT',
    pattern: `${PREFIX}/webhooks/:webhookId/disable`,
    operation: 'DisableWebhook',
    scope: 'agent',
    handle: setEnabled(false),
  },
  {
    method: 'DELETE',
    pattern: `${PREFIX}/webhooks/:webhookId`,
    operation: 'RemoveWebhook',
    scope: 'agent',
    handle(context) {
      context.store.webhooks.delete(webhookOf(context).id);
      return { status: 200 };
    },
  },
  {
    method: 'GET',
    pattern: `${PREFIX}/definitions/schemas`,
    operation: 'ListSchemas',
    scope: 'agent',
    handle: (context) => ok(context.store.agentDefinitions.get(tenantOf(context))?.schemas ?? []),
  },
  {
    method: 'GET',
    pattern: `${PREFIX}/verificationPolicies`,
    operation: 'ListVerificationPolicies',
    scope: 'agent',
    handle: (context) => ok(context.store.agentDefinitions.get(tenantOf(context))?.policies ?? []),
  },
];
