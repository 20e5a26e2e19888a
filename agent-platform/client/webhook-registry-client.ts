import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { type UpdateDefinition } from '@temporalio/common';
import { agentWebhooksWorkflowId, tenantProblem } from '../domain/agent-tenants';
import { webhookRegistryInputProblems, type WebhookRegistrySettings } from '../domain/webhook-registry-input';
import {
  disableWebhookUpdate,
  enableWebhookUpdate,
  listWebhooksQuery,
  reconcileWebhooksUpdate,
  type RegisterWebhookRequest,
  registerWebhookUpdate,
  removeWebhookUpdate,
  type WebhookListing,
  type WebhookView,
} from '../shared/messages';
import { innermostMessage } from '../../common/failure-message';
import { sentAcrossRuns } from '../../common/resend-across-runs';
import { REGISTRY_MOVING_ON } from '../shared/failure-types';
import { agentPlatformWorkflowTypes, type AgentWebhooksWorkflow } from '../shared/workflows';
import { registryMetadata } from '../shared/metadata';

/**
 * How long a change refused while the registry moves to its next run is sent again: the changes
 * it accepted before finish first, each up to three of the platform's calls (of up to 2 minutes).
 */
const REGISTRY_MOVING_ON_WAIT_MS = 10 * 60_000;

/** Thrown when the registry refused a change (invalid, a sixth webhook, unknown id) or the platform did; the message says why. */
export class WebhookRegistryError extends Error {
  override readonly name = 'WebhookRegistryError';
}

/** Options of each change a {@link WebhookRegistryClient} sends. */
export interface ChangeOptions {
  /**
   * Stops sending the change again while the registry moves to its next run (an activity passes
   * its cancellation signal: a change sent after it was given up could land after its
   * compensation).
   */
  signal?: AbortSignal;
}

/** Options of {@link WebhookRegistryClient}. */
export interface WebhookRegistryClientOptions {
  /** A Temporal client with the workers' data converter. */
  client: Client;
  /** @default 'identity-verification' */
  taskQueue?: string;
  /** Settings of registries this client starts (a running registry keeps its own). */
  settings?: WebhookRegistrySettings;
}

/**
 * The tenants' webhook registries (`idv-agent-webhooks-<tenant>`): each change is an update
 * with start, so the first one starts a tenant's registry.
 */
export class WebhookRegistryClient {
  readonly #client: Client;
  readonly #taskQueue: string;
  readonly #settings: WebhookRegistrySettings;

  constructor(options: WebhookRegistryClientOptions) {
    const problems = webhookRegistryInputProblems({ tenant: 'valid', ...options.settings });
    if (problems.length > 0) throw new WebhookRegistryError(problems.join('; '));
    this.#client = options.client;
    this.#taskQueue = options.taskQueue ?? 'identity-verification';
    this.#settings = options.settings ?? {};
  }

  /**
   * The registry's webhooks (managed and external), drift and last comparison. A registry that is
   * not running (never started, ended, terminated) is started and compares first, so the answer
   * is never the memory of one that no longer watches the platform.
   */
  async list(tenant: string): Promise<WebhookListing> {
    const handle = this.#client.workflow.getHandle(this.#workflowId(tenant));
    const running = await handle.describe().then(
      (description) => description.status.name === 'RUNNING',
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      },
    );
    return running ? await handle.query(listWebhooksQuery) : await this.reconcile(tenant);
  }

  /**
   * Registers a webhook: a URL of yours, or (without `url`) this deployment's receiver. A caller
   * that may ask again without knowing whether its first request arrived (an activity's retry)
   * passes the same `updateId` both times: the second waits for the first and answers its
   * outcome, where a registration of its own would be refused as a duplicate of it.
   */
  async register(
    tenant: string,
    request: RegisterWebhookRequest = {},
    options: ChangeOptions & { updateId?: string } = {},
  ): Promise<WebhookView> {
    return await this.#update(tenant, registerWebhookUpdate, [request], options);
  }

  /** Enables a managed webhook. */
  async enable(tenant: string, webhookId: string, options: ChangeOptions = {}): Promise<WebhookView> {
    return await this.#update(tenant, enableWebhookUpdate, [webhookId], options);
  }

  /** Disables a managed webhook (kept, without deliveries). */
  async disable(tenant: string, webhookId: string, options: ChangeOptions = {}): Promise<WebhookView> {
    return await this.#update(tenant, disableWebhookUpdate, [webhookId], options);
  }

  /** Removes a webhook from the platform and the registry. */
  async remove(tenant: string, webhookId: string, options: ChangeOptions = {}): Promise<WebhookListing> {
    return await this.#update(tenant, removeWebhookUpdate, [webhookId], options);
  }

  /** Compares with the platform now, repairing or adopting drift per the registry's policy. */
  async reconcile(tenant: string, options: ChangeOptions = {}): Promise<WebhookListing> {
    return await this.#update(tenant, reconcileWebhooksUpdate, [], options);
  }

  #workflowId(tenant: string): string {
    const problem = tenantProblem(tenant);
    if (problem) throw new WebhookRegistryError(problem);
    return agentWebhooksWorkflowId(tenant);
  }

  async #update<Ret, Args extends unknown[]>(
    tenant: string,
    update: UpdateDefinition<Ret, Args>,
    args: Args,
    options: ChangeOptions & { updateId?: string },
  ): Promise<Ret> {
    const { updateId, signal } = options;
    const startWorkflowOperation = () =>
      new WithStartWorkflowOperation<AgentWebhooksWorkflow>(agentPlatformWorkflowTypes.registry, {
        workflowId: this.#workflowId(tenant),
        taskQueue: this.#taskQueue,
        args: [{ tenant, ...this.#settings }],
        ...registryMetadata(tenant),
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    try {
      // A start operation is used once: each send makes its own.
      return await sentAcrossRuns(
        () =>
          this.#client.workflow.executeUpdateWithStart(update, {
            args,
            startWorkflowOperation: startWorkflowOperation(),
            ...(updateId ? { updateId } : {}),
          }),
        REGISTRY_MOVING_ON,
        { withinMs: REGISTRY_MOVING_ON_WAIT_MS, ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError)
        throw new WebhookRegistryError(innermostMessage(error), { cause: error });
      throw error;
    }
  }
}
