import { markdownLines, startMetadata, type StartMetadata } from '../../common/user-metadata';
import type { MigrationProgress } from './migration-messages';

/*
 * Temporal's user metadata of the agent-platform workflows, for every start of one; the
 * workflows keep their current details themselves. Tenant and connection ids are the
 * platform's, never a person's data.
 */

/** A connection's event log (`agentConnection`). */
export function connectionMetadata(tenant: string, connectionId: string): StartMetadata {
  return startMetadata(`Agent connection ${connectionId} · tenant ${tenant}`, [
    `**Keeps the events** of connection ${connectionId} of tenant ${tenant}, each once`,
    'Ends when no event has come for its idle timeout',
  ]);
}

/** A tenant's webhook registry (`agentWebhooks`). */
export function registryMetadata(tenant: string): StartMetadata {
  return startMetadata(`Webhook registry · tenant ${tenant}`, [
    `**Owns the webhooks** of tenant ${tenant} on the earlier platform`,
    'Compares them with what the platform holds and reports any drift',
  ]);
}

/** A connection's onboarding (`onboarding`). */
export function onboardingMetadata(tenant: string, connectionId: string): StartMetadata {
  return startMetadata(`Onboarding · connection ${connectionId} · tenant ${tenant}`, [
    `**Onboards** connection ${connectionId} of tenant ${tenant}:`,
    'waits for it to be active, verifies the holder, then offers the credential',
  ]);
}

/** A tenant's migration off the earlier platform (`platformMigration`). */
export function migrationMetadata(tenant: string, apply: boolean): StartMetadata {
  return startMetadata(`Platform migration · tenant ${tenant} · ${apply ? 'apply' : 'dry run'}`, [
    `**Moves tenant ${tenant}** from the earlier platform to the Identity Verification Service`,
    apply ? 'Applies the changes' : 'A dry run: reads both platforms and changes nothing',
  ]);
}

/**
 * A running migration's current details: its step, with what it has done of it (`urisClassified`:
 * the service has said which of the redirect URIs it has already).
 */
export function migrationDetails(progress: MigrationProgress, urisClassified: boolean): string {
  const { redirectUris: uris, webhooks } = progress;
  const doing: Record<MigrationProgress['stage'], string> = {
    inventory: 'reading what the earlier platform holds, and planning',
    convert: 'converting its templates and authorize requests',
    apply: urisClassified
      ? `registering redirect URIs: ${uris.registered} registered, ${uris.skipped} there already, of ${uris.needed}`
      : `checking which of its ${uris.needed} redirect URIs the service has already`,
    'cut-over': `disabling the earlier webhooks: ${webhooks.disabled} of ${webhooks.toDisable}`,
    compensate: `enabling again the webhooks it disabled: ${webhooks.reEnabled} so far`,
    report: 'writing the report',
    done: 'done',
  };
  return markdownLines([
    `**running** (${progress.mode}): ${progress.stage}: ${doing[progress.stage]}`,
    progress.flags > 0 ? `Flags raised by the conversion: ${progress.flags}` : '',
  ]);
}
