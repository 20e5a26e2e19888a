import type { VersioningBehavior } from '@temporalio/common';
import type { OnboardingInput } from '../domain/onboarding';
import type { PlatformMigrationInput } from '../domain/migration/migration-input';
import type { MigrationReport } from '../domain/migration/migration-report';
import type { WebhookRegistrySettings } from '../domain/webhook-registry-input';
import type { ManagedWebhook, ObservedWebhook, WebhookDrift } from '../domain/webhook-registry';
import type { ConnectionEvents, SeenAgentEvent, WebhookListing } from './messages';
import type { OnboardingSummary } from './onboarding-messages';

/** The earlier platform's workflow types, as workers register them and clients start them. */
export const agentPlatformWorkflowTypes = {
  registry: 'agentWebhooks',
  connection: 'agentConnection',
  onboarding: 'onboarding',
  migration: 'platformMigration',
} as const;

/**
 * How each runs across builds (Worker Versioning): the registry, connections and onboardings live
 * for months and move to the current build (their code changes replay-safely, with `patched`; they
 * continue as new often, so a new build replays short histories); a migration takes minutes and
 * stays on the build that started it.
 */
export const agentPlatformVersioning = {
  registry: 'AUTO_UPGRADE',
  connection: 'AUTO_UPGRADE',
  onboarding: 'AUTO_UPGRADE',
  migration: 'PINNED',
} as const satisfies Record<keyof typeof agentPlatformWorkflowTypes, VersioningBehavior>;

/** A tenant's webhook registry (`idv-agent-webhooks-<tenant>`). */
export type AgentWebhooksWorkflow = (input: AgentWebhooksInput) => Promise<WebhookListing>;
/** One connection of a tenant (`idv-connection-<tenant>-<connectionId>`). */
export type AgentConnectionWorkflow = (input: AgentConnectionInput) => Promise<ConnectionEvents>;
/** The onboarding of one connection (`idv-onboarding-<tenant>:<connectionId>`). */
export type OnboardingWorkflow = (input: OnboardingInput) => Promise<OnboardingSummary>;
/** A tenant's migration off the earlier platform (`idv-migration-<tenant>`). */
export type PlatformMigrationWorkflow = (input: PlatformMigrationInput) => Promise<MigrationReport>;

/** Input of the connection workflow (`agentConnection`). */
export interface AgentConnectionInput {
  tenant: string;
  connectionId: string;
  /** It ends when no event has come for this long (1 s to 365 days). @default 30 days */
  idleTimeoutMs?: number;
  /** It continues as new past this many history events (20 to 20,000). @default 2000 */
  maxHistoryEvents?: number;
  /** Set by the workflow itself when it continues as new. */
  carried?: { events: SeenAgentEvent[]; keys: string[]; total: number; duplicates: number; ignored?: number };
}

/** Input of a tenant's webhook registry (`agentWebhooks`). */
export interface AgentWebhooksInput extends WebhookRegistrySettings {
  tenant: string;
  /** Set by the registry itself when it continues as new. */
  carried?: RegistryCarriedState;
}

/** The address of a kept webhook removed whose others at it could not all go then. */
export interface SweptAddress {
  url: string;
  type: string;
  /** The comparisons that swept it so far. */
  tries?: number;
  /** The kept webhook removed there, named by the give-up when no other was seen there. */
  keptId?: string;
}

/** What the registry carries across continue-as-new. */
export interface RegistryCarriedState {
  webhooks: ManagedWebhook[];
  external: ObservedWebhook[];
  drift: WebhookDrift[];
  lastReconcile?: WebhookListing['lastReconcile'];
  /** Its last comparison gave up on something (`IdvStatus` says so). */
  attention?: boolean;
  /** Addresses of kept webhooks removed whose other webhooks could not all be removed then. */
  sweeping?: SweptAddress[];
  /**
   * Addresses whose sweep was given up: the registry stays marked for attention while a listing
   * shows an enabled webhook it does not keep there.
   */
  abandoned?: SweptAddress[];
}
