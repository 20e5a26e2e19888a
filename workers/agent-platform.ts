import { AgentClients } from '../api/agent/agent-clients';
import { type AgentPlatform } from '../agent-platform/activities/deps';
import { type IdvConfig } from './config';
import { type StackInfo } from './dev/stack-file';
import { ReceiverTokens } from '../codec/receiver-tokens';
import { receiverAddressOf } from './receiver-address';

/**
 * The earlier platform as a worker sees it: `IDV_AGENT_KEYS` (else the dev stack's emulator) and,
 * when a receiver is known (`IDV_RECEIVER_URL` + `IDV_RECEIVER_SECRET`, else the dev stack's),
 * how to make a tenant's receiver URL. Undefined when there are no tenant keys at all.
 */
export async function agentPlatformOf(
  config: IdvConfig,
  stack: StackInfo | undefined,
): Promise<AgentPlatform | undefined> {
  const keys = config.agent?.keys ?? stack?.emulator?.agentKeys;
  if (!keys) return undefined;
  const baseUrl = config.agent ? config.agent.baseUrl : stack?.emulator?.agentBaseUrl;
  const clients = new AgentClients({ keys, ...(baseUrl ? { baseUrl } : {}) });
  const receiver = await receiverAddressOf(config, stack);
  if (!receiver) return { clients };
  const tokens = new ReceiverTokens(receiver.secret);
  return { clients, receiverWebhookUrl: (tenant) => tokens.webhookUrl(receiver.url, tenant) };
}
