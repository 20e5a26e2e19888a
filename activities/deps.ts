import { type AgentClients } from '../api/agent/agent-clients';
import { type IdentityClient } from '../api/identity/identity-client';
import { type DataKeys } from '../codec/data-keys';
import { type BlobStore } from '../stores/blob-store';
import { type SessionVault } from '../stores/session-vault';
import { type VerificationRecords } from '../stores/verification-records';
import { type KeyringSettings } from './keyring-activities';
import { type OrphanSettings } from './orphan-settings';
import { type ResultLimits } from './result-limits';

/** What the activities need; built once per worker. */
export interface ActivityDeps {
  identity: IdentityClient;
  vault: SessionVault;
  blobs: BlobStore;
  /** The verification records (endings and erasures are recorded there). */
  records: VerificationRecords;
  /** The verifications' data keys: the person's data is sealed and opened with them. */
  dataKeys: DataKeys;
  /** Bounds of results fetching. @default defaultResultLimits */
  resultLimits?: Partial<ResultLimits>;
  /** How often the keyring rotates. @default 1 hour */
  keyring?: Partial<KeyringSettings>;
  /** The orphan sweep's horizon. @default 24 hours */
  orphans?: Partial<OrphanSettings>;
  /** The earlier agent platform; absent: the webhook registry's calls fail, saying so. */
  agent?: AgentPlatform;
}

/** What the webhook registry's activities need. */
export interface AgentPlatform {
  /** A client per tenant (each tenant has its own key). */
  clients: AgentClients;
  /** The receiver's webhook URL of a tenant, its token in the path; absent when no receiver is configured. */
  receiverWebhookUrl?: (tenant: string) => string;
}
