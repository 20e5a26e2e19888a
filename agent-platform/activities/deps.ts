import { type AgentClients } from '../../api/agent/agent-clients';
import { type VerificationDeps } from '../../verification/activities/deps';

/** What the earlier platform's activities need; built once per worker. */
export interface AgentPlatformDeps extends Pick<
  VerificationDeps,
  'identity' | 'vault' | 'records' | 'dataKeys'
> {
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
