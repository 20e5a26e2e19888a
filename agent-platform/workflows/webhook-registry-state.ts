import {
  type DriftPolicy,
  maskedUrl,
  type ManagedWebhook,
  sameAddress,
  type ObservedWebhook,
  type WebhookDrift,
} from '../domain/webhook-registry';
import { type WebhookListing, type WebhookView } from '../shared/messages';
import { type RegistryCarriedState, type SweptAddress } from '../shared/workflows';

const MAX_DRIFT_KEPT = 20;

/**
 * Comparisons that sweep an address before the registry gives it up (an hour at the default
 * interval): a platform that refuses the removal for good, or a tenant whose key was removed,
 * must not keep the registry awake forever.
 */
export const SWEEP_TRIES = 6;

/** The registry's memory of a tenant's webhooks: plain data, so it carries across runs. */
export class RegistryState {
  webhooks: ManagedWebhook[];
  external: ObservedWebhook[];
  drift: WebhookDrift[];
  lastReconcile: WebhookListing['lastReconcile'];
  /** Its last comparison gave up on something: marked for attention until one goes through. */
  attention: boolean;
  /**
   * Addresses of kept webhooks removed whose other webhooks could not all be removed with them:
   * each comparison removes what is left there, since nothing kept at the address makes it extra.
   */
  sweeping: SweptAddress[];
  /** Addresses whose sweep was given up, while something it does not keep is still live there. */
  abandoned: SweptAddress[];

  constructor(
    readonly tenant: string,
    readonly settings: { driftPolicy: DriftPolicy; reconcileEveryMs: number },
    carried: RegistryCarriedState | undefined,
  ) {
    this.webhooks = carried?.webhooks ?? [];
    this.external = carried?.external ?? [];
    this.drift = carried?.drift ?? [];
    this.lastReconcile = carried?.lastReconcile;
    this.attention = carried?.attention ?? false;
    this.sweeping = carried?.sweeping ?? [];
    this.abandoned = carried?.abandoned ?? [];
  }

  /** The others at a removed kept webhook's address are to go at the next comparisons. */
  sweepLater(removed: ManagedWebhook): void {
    if (!this.sweeping.some((each) => sameAddress(each, removed)))
      this.sweeping = [...this.sweeping, { url: removed.url, type: removed.type, keptId: removed.id }];
  }

  /**
   * Counts a comparison for each address swept; those swept {@link SWEEP_TRIES} times already are
   * swept no more but abandoned, and returned with the enabled webhooks last seen there.
   */
  sweepTried(): Array<{ address: SweptAddress; seen: ObservedWebhook[] }> {
    const tries = (address: SweptAddress) => address.tries ?? 0;
    const overdue = this.sweeping.filter((address) => tries(address) >= SWEEP_TRIES);
    this.sweeping = this.sweeping
      .filter((address) => tries(address) < SWEEP_TRIES)
      .map((address) => ({ ...address, tries: tries(address) + 1 }));
    this.abandoned = [...this.abandoned, ...overdue];
    return overdue.map((address) => ({
      address,
      seen: this.external.filter((webhook) => webhook.enabled !== false && sameAddress(webhook, address)),
    }));
  }

  /**
   * The enabled webhooks of `external` at an address swept (those of `duplicates` aside, removed
   * anyway): nothing kept at the address makes them extra, so they are to be removed.
   */
  leftAtSwept(
    external: readonly ObservedWebhook[],
    duplicates: readonly ObservedWebhook[],
  ): ObservedWebhook[] {
    return external.filter(
      (webhook) =>
        webhook.enabled !== false &&
        !duplicates.includes(webhook) &&
        this.sweeping.some((address) => sameAddress(address, webhook)),
    );
  }

  /**
   * After a comparison's removals (`outcomes` by webhook id): an address is swept no more once
   * every webhook `left` there (see {@link leftAtSwept}) was removed.
   */
  sweptOnce(left: readonly ObservedWebhook[], outcomes: ReadonlyMap<string, string>): void {
    this.sweeping = this.sweeping.filter((address) =>
      left.some((webhook) => sameAddress(address, webhook) && outcomes.get(webhook.id) !== 'removed'),
    );
  }

  /** Keeps the abandoned addresses where `observed` still shows an enabled webhook not kept. */
  abandonedStillLive(observed: readonly ObservedWebhook[]): void {
    this.abandoned = this.abandoned.filter((address) =>
      observed.some(
        (webhook) => webhook.enabled !== false && !this.managed(webhook.id) && sameAddress(webhook, address),
      ),
    );
  }

  /** Every webhook the tenant has as far as the registry knows (managed and external): the limit counts them all. */
  known(): Array<{ url: string; type: string }> {
    return [...this.webhooks, ...this.external];
  }

  /** A webhook the registry knows by id, managed or external. */
  has(webhookId: unknown): boolean {
    return [...this.webhooks, ...this.external].some((webhook) => webhook.id === webhookId);
  }

  managed(webhookId: string): ManagedWebhook | undefined {
    return this.webhooks.find((webhook) => webhook.id === webhookId);
  }

  /** Replaces (or adds) a managed webhook; the platform's id may have changed (re-created). */
  put(webhook: ManagedWebhook, previousId: string = webhook.id): void {
    this.webhooks = [...this.webhooks.filter((w) => w.id !== previousId && w.id !== webhook.id), webhook];
    this.external = this.external.filter((w) => w.id !== webhook.id);
    // An address kept again is no longer swept, nor abandoned.
    this.sweeping = this.sweeping.filter((address) => !sameAddress(address, webhook));
    this.abandoned = this.abandoned.filter((address) => !sameAddress(address, webhook));
  }

  forget(webhookId: string): void {
    this.webhooks = this.webhooks.filter((webhook) => webhook.id !== webhookId);
    this.external = this.external.filter((webhook) => webhook.id !== webhookId);
  }

  /**
   * Adds drift found; the same finding again (a repair failing at every comparison) replaces its
   * earlier entry instead of pushing other history out.
   */
  noteDrift(entries: WebhookDrift[]): void {
    const sameFinding = (one: WebhookDrift, other: WebhookDrift) =>
      one.webhookId === other.webhookId &&
      one.kind === other.kind &&
      (one.outcome === other.outcome ||
        (one.outcome.startsWith('repair failed') && other.outcome.startsWith('repair failed')));
    let drift = this.drift;
    for (const entry of entries) drift = [...drift.filter((earlier) => !sameFinding(earlier, entry)), entry];
    this.drift = drift.slice(-MAX_DRIFT_KEPT);
  }

  view(webhook: ManagedWebhook): WebhookView {
    return {
      id: webhook.id,
      url: maskedUrl(webhook),
      type: webhook.type,
      enabled: webhook.enabled,
      managed: true,
      receiver: webhook.receiver,
    };
  }

  listing(): WebhookListing {
    const external: WebhookView[] = this.external.map((webhook) => ({
      id: webhook.id,
      // Another deployment's receiver, or this one's from before a restart: its token stays hidden.
      url: maskedUrl({ url: webhook.url, receiver: false }),
      type: webhook.type,
      enabled: webhook.enabled ?? true,
      managed: false,
      receiver: false,
    }));
    return {
      tenant: this.tenant,
      webhooks: [...this.webhooks.map((webhook) => this.view(webhook)), ...external],
      driftPolicy: this.settings.driftPolicy,
      reconcileEveryMs: this.settings.reconcileEveryMs,
      ...(this.lastReconcile ? { lastReconcile: this.lastReconcile } : {}),
      drift: this.drift,
    };
  }

  carried(): RegistryCarriedState {
    return {
      webhooks: this.webhooks,
      external: this.external,
      drift: this.drift,
      ...(this.lastReconcile ? { lastReconcile: this.lastReconcile } : {}),
      ...(this.attention ? { attention: true } : {}),
      ...(this.sweeping.length > 0 ? { sweeping: this.sweeping } : {}),
      ...(this.abandoned.length > 0 ? { abandoned: this.abandoned } : {}),
    };
  }
}
