import { z } from 'zod';
import { type CallOptions, HttpCore, type HttpCoreOptions } from '../http/http-core';
import { checkInput } from '../http/input';
import { path } from '../http/path';
import { absoluteUriSchema, requiredTextSchema } from '../identity/inputs';
import {
  type SchemaRecord,
  schemaRecordSchema,
  type VerificationPolicy,
  verificationPolicySchema,
  type Webhook,
  webhookSchema,
  webhookTypes,
} from './schemas';

/** Base address of the earlier agent platform's credentials API. */
export const agentBaseUrl = 'https://api.trinsic.id/credentials/v1';

const createWebhookSchema = z.strictObject({
  url: absoluteUriSchema,
  type: z.enum(webhookTypes),
  parameters: z.string().optional(),
});

/** Options of {@link createAgentClient}: a tenant-scoped key. */
export interface AgentClientOptions extends Omit<HttpCoreOptions, 'baseUrl'> {
  /** @default {@link agentBaseUrl} */
  baseUrl?: string;
}

/** What a webhook is registered with. */
export type CreateWebhookRequest = z.input<typeof createWebhookSchema>;

/** Typed client of the earlier agent platform: webhooks, and the reads the migration needs. */
export class AgentClient {
  constructor(private readonly http: HttpCore) {}

  /** ListWebhooks. */
  async listWebhooks(options: CallOptions = {}): Promise<Webhook[]> {
    return await this.http.request({
      operation: 'ListWebhooks',
      method: 'GET',
      path: '/webhooks',
      schema: z.array(webhookSchema),
      ...options,
    });
  }

  /** CreateWebhook. */
  async createWebhook(request: CreateWebhookRequest, options: CallOptions = {}): Promise<Webhook> {
    const operation = 'CreateWebhook';
    const body = checkInput(operation, createWebhookSchema, request);
    return await this.http.request({
      operation,
      method: 'POST',
      path: '/webhooks',
      body,
      schema: webhookSchema,
      ...options,
    });
  }

  /** EnableWebhook. */
  async enableWebhook(webhookId: string, options: CallOptions = {}): Promise<void> {
    await this.#webhookCommand('EnableWebhook', 'PUT', webhookId, '/enable', options);
  }

  /** DisableWebhook. */
  async disableWebhook(webhookId: string, options: CallOptions = {}): Promise<void> {
    await this.#webhookCommand('DisableWebhook', 'PUT', webhookId, '/disable', options);
  }

  /** RemoveWebhook: permanent. */
  async removeWebhook(webhookId: string, options: CallOptions = {}): Promise<void> {
    await this.#webhookCommand('RemoveWebhook', 'DELETE', webhookId, '', options);
  }

  /** ListSchemas. */
  async listSchemas(options: CallOptions = {}): Promise<SchemaRecord[]> {
    return await this.http.request({
      operation: 'ListSchemas',
      method: 'GET',
      path: '/definitions/schemas',
      schema: z.array(schemaRecordSchema),
      ...options,
    });
  }

  /** ListVerificationPolicies. */
  async listVerificationPolicies(options: CallOptions = {}): Promise<VerificationPolicy[]> {
    return await this.http.request({
      operation: 'ListVerificationPolicies',
      method: 'GET',
      path: '/verificationPolicies',
      schema: z.array(verificationPolicySchema),
      ...options,
    });
  }

  /** Closes keep-alive connections. */
  close(): Promise<void> {
    return this.http.close();
  }

  async #webhookCommand(
    operation: string,
    method: 'PUT' | 'DELETE',
    webhookId: string,
    suffix: string,
    options: CallOptions,
  ): Promise<void> {
    const id = checkInput(operation, requiredTextSchema, webhookId, 'webhookId');
    await this.http.request({ operation, method, path: path`/webhooks/${id}` + suffix, ...options });
  }
}

/** Creates a client of the earlier platform for one tenant's key. */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  return new AgentClient(new HttpCore({ ...options, baseUrl: options.baseUrl ?? agentBaseUrl }));
}
