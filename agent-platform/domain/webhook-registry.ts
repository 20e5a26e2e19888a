import { sameWebhookUrl } from './webhook-rules';

/**
 * What the registry does when the platform no longer matches it (a webhook deleted, disabled or
 * enabled through the platform directly): `repair` puts the registry's state back (re-creates,
 * re-enables, re-disables); `adopt` takes the platform's state as the new desired state. Either
 * way the drift is reported in `list`.
 */
export const driftPolicies = ['repair', 'adopt'] as const;
/** One of {@link driftPolicies}. */
export type DriftPolicy = (typeof driftPolicies)[number];

/** A webhook as the platform lists it. */
export interface ObservedWebhook {
  id: string;
  url: string;
  type: string;
  /** Absent when the platform does not say: then it is taken to match. */
  enabled?: boolean | undefined;
}

/** A webhook the registry manages: what it wants the platform to have. */
export interface ManagedWebhook {
  id: string;
  /** The whole URL; for the receiver's own webhook the path holds the tenant's token. */
  url: string;
  type: string;
  enabled: boolean;
  /** The receiver's own URL (its token is never shown). */
  receiver: boolean;
  createdAt: string;
  /**
   * Removed at the platform by the registry itself to make room for its move (the receiver's
   * address changed at the platform's limit), and not made again yet: it is made at the next
   * comparison whatever the drift policy, as the removal was the registry's own.
   */
  removedToMove?: true;
}

/** A difference found between the registry and the platform, and what was done about it. */
export interface WebhookDrift {
  webhookId: string;
  /**
   * Changed outside the registry (`deleted`, `disabled`, `enabled`); the receiver's address
   * changed (`moved`); the receiver's webhook found unmanaged at the platform (`found`); a second
   * webhook at the address of one the registry manages (`duplicate`: a create the platform
   * carried out after its answer was lost or came late, or one made outside the registry).
   */
  kind: 'deleted' | 'disabled' | 'enabled' | 'moved' | 'found' | 'duplicate';
  seenAt: string;
  /** `recreated as <id>`, `moved to <id>`, `enabled`, `disabled`, `adopted`, `managed`, `removed`, or `repair failed: <why>`. */
  outcome: string;
}

/** A repair the registry makes to bring the platform back to its state. */
export type RepairAction =
  | { kind: 'recreate'; webhook: ManagedWebhook }
  | { kind: 'set-enabled'; webhookId: string; enabled: boolean }
  | { kind: 'repoint'; webhook: ManagedWebhook; url: string };

/** What one comparison found. */
export interface ReconcilePlan {
  /** Drift found (outcome filled in by whoever acts on the plan). */
  drift: Array<Omit<WebhookDrift, 'outcome' | 'seenAt'>>;
  /** Under `repair`: what to call. */
  repairs: RepairAction[];
  /** Under `adopt`: the managed webhooks after taking the platform's state. */
  managed: ManagedWebhook[];
  /** Webhooks at the platform the registry does not manage (they count toward the limit). */
  external: ObservedWebhook[];
  /**
   * Of `external`, those at the address (and of the type) of a webhook the registry keeps: each
   * would deliver every event a second time, and outlive the removal of the one it manages.
   */
  duplicates: ObservedWebhook[];
}

/**
 * Compares the registry with the platform's list; pure, so the workflow replays it as it was.
 * With the receiver's current URL, the receiver's webhook is also moved when that URL changed
 * (whatever the policy: the address is this deployment's, not the platform's), and taken back
 * when it is found unmanaged (a registry restarted, an answer lost).
 */
export function planReconcile(
  managed: readonly ManagedWebhook[],
  observed: readonly ObservedWebhook[],
  policy: DriftPolicy,
  receiver?: { url: string; now: string },
): ReconcilePlan {
  const byId = new Map(observed.map((webhook) => [webhook.id, webhook]));
  const plan: ReconcilePlan = { drift: [], repairs: [], managed: [], external: [], duplicates: [] };
  for (const webhook of managed) {
    const seen = byId.get(webhook.id);
    if (!seen && webhook.removedToMove) {
      plan.drift.push({ webhookId: webhook.id, kind: 'moved' });
      plan.repairs.push({ kind: 'recreate', webhook });
      plan.managed.push(webhook);
      continue;
    }
    if (!seen) {
      plan.drift.push({ webhookId: webhook.id, kind: 'deleted' });
      if (policy === 'repair') {
        plan.repairs.push({ kind: 'recreate', webhook });
        plan.managed.push(webhook);
      }
      continue;
    }
    if (seen.enabled !== undefined && seen.enabled !== webhook.enabled) {
      plan.drift.push({ webhookId: webhook.id, kind: seen.enabled ? 'enabled' : 'disabled' });
      if (policy === 'repair')
        plan.repairs.push({ kind: 'set-enabled', webhookId: webhook.id, enabled: webhook.enabled });
      plan.managed.push(policy === 'repair' ? webhook : { ...webhook, enabled: seen.enabled });
      continue;
    }
    if (receiver && webhook.receiver && webhook.url !== receiver.url) {
      plan.drift.push({ webhookId: webhook.id, kind: 'moved' });
      plan.repairs.push({ kind: 'repoint', webhook, url: receiver.url });
    }
    plan.managed.push(webhook);
  }
  const managedIds = new Set(managed.map((webhook) => webhook.id));
  plan.external = observed.filter((webhook) => !managedIds.has(webhook.id));
  // This receiver's path for the tenant, whatever its token (one from before a new secret).
  const base = receiver?.url.replace(/[^/]+\/?$/, '');
  const found =
    receiver &&
    (plan.external.find((webhook) => webhook.url === receiver.url) ??
      plan.external.find((webhook) => base !== undefined && webhook.url.startsWith(base)));
  if (receiver && found && !plan.managed.some((webhook) => webhook.receiver)) {
    const taken: ManagedWebhook = {
      id: found.id,
      url: found.url,
      type: found.type,
      enabled: found.enabled ?? true,
      receiver: true,
      createdAt: receiver.now,
    };
    plan.drift.push({ webhookId: found.id, kind: 'found' });
    plan.managed.push(taken);
    plan.external = plan.external.filter((webhook) => webhook.id !== found.id);
    if (found.url !== receiver.url) plan.repairs.push({ kind: 'repoint', webhook: taken, url: receiver.url });
  }
  // Only a kept webhook that delivers once the comparison is done (listed at the platform, and
  // enabled as the plan leaves it: a repair enables it again, an adoption keeps it disabled)
  // makes another at its address extra, and only one that delivers: one deleted (a re-creation
  // takes the other over) or left disabled delivers nothing, and the other may be what does (a
  // hand rotation).
  const listed = new Set(observed.map((webhook) => webhook.id));
  const delivering = plan.managed.filter((kept) => listed.has(kept.id) && kept.enabled);
  plan.duplicates = plan.external.filter(
    (webhook) => webhook.enabled !== false && delivering.some((kept) => sameAddress(kept, webhook)),
  );
  return plan;
}

/** Two webhooks at one address, of one type: either would deliver what the other does. */
export function sameAddress(
  one: { url: string; type: string },
  other: { url: string; type: string },
): boolean {
  return one.type === other.type && sameWebhookUrl(one.url, other.url);
}

/** A URL shaped like a receiver's (`…/agent/<tenant>/<token>`): its last segment may be a token. */
export function looksLikeReceiverUrl(url: string): boolean {
  return /\/agent\/[^/]+\/[^/?#]+\/?$/.test(url);
}

/**
 * A webhook URL as views, lists, reports and logs show it: a receiver's token, and the
 * credentials and query where URLs of one's own often carry a secret, hidden.
 */
export function maskedUrl(webhook: Pick<ManagedWebhook, 'url' | 'receiver'>): string {
  const masked =
    webhook.receiver || looksLikeReceiverUrl(webhook.url)
      ? webhook.url.replace(/\/[^/]+\/?$/, '/****')
      : webhook.url;
  try {
    const url = new URL(masked);
    if (!url.username && !url.password && !url.search) return masked;
    url.username = '';
    url.password = '';
    if (url.search) url.search = '?****';
    return url.href;
  } catch {
    return masked;
  }
}
