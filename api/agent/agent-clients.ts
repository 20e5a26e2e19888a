import { type AgentClient, createAgentClient } from './agent-client';

/** Options of {@link AgentClients}. */
export interface AgentClientsOptions {
  /** Each tenant's API key of the earlier platform. */
  keys: Readonly<Record<string, string>>;
  /** @default agentBaseUrl */
  baseUrl?: string;
}

/** One client of the earlier platform per tenant, made on first use and closed together. */
export class AgentClients {
  readonly #clients = new Map<string, AgentClient>();
  readonly #options: AgentClientsOptions;

  constructor(options: AgentClientsOptions) {
    this.#options = options;
  }

  /** The tenants that have a key. */
  get tenants(): string[] {
    return Object.keys(this.#options.keys);
  }

  /** The tenant's client, or undefined when it has no key here. */
  clientFor(tenant: string): AgentClient | undefined {
    const existing = this.#clients.get(tenant);
    if (existing) return existing;
    if (!Object.hasOwn(this.#options.keys, tenant)) return undefined;
    const apiKey = this.#options.keys[tenant] as string;
    const client = createAgentClient({
      apiKey,
      ...(this.#options.baseUrl ? { baseUrl: this.#options.baseUrl } : {}),
    });
    this.#clients.set(tenant, client);
    return client;
  }

  /** Closes every client made. */
  async close(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((client) => client.close()));
    this.#clients.clear();
  }
}
