import { type Client, WithStartWorkflowOperation } from '@temporalio/client';
import { type CurrentKey, type KeyEncryptionKey, type Keyring } from '../codec/keyring';
import {
  KEYRING_WORKFLOW_TYPE,
  keyringQuery,
  keyringUpdate,
  type KeyringView,
  type KeyringWorkflow,
  keyringMetadata,
  keyringWorkflowId,
} from './shared';

/** Thrown when the keyring does not answer in time: no worker runs on its task queue, or Temporal is away. */
export class KeyringUnavailableError extends Error {
  override readonly name = 'KeyringUnavailableError';
}

/** Options of {@link TemporalKeyring}. */
export interface TemporalKeyringOptions {
  /** A Temporal client (or how to get it, for a process whose client exists only later). */
  client: Client | (() => Client);
  /** The deployment's task queue: its workers run the keyring (`idv-keyring-<taskQueue>`). */
  taskQueue: string;
  /** How long one read of the keyring may take. @default 30000 */
  timeoutMs?: number;
}

interface Snapshot {
  keys: Map<string, KeyEncryptionKey>;
  current: KeyEncryptionKey;
  refreshMs: number;
  /** `performance.now()` before the keyring was asked. */
  askedAt: number;
}

/**
 * The deployment's keyring, read from its workflow by query (no history is written), started
 * when it does not run yet. What it read serves for the keyring's `refreshMs`; a data key must be
 * written within twice that after the read (`wrapBy`), as the keyring waits three times that
 * between making a key current and re-wrapping what older keys wrap.
 */
export class TemporalKeyring implements Keyring {
  readonly #client: () => Client;
  readonly #workflowId: string;
  readonly #taskQueue: string;
  readonly #timeoutMs: number;
  #snapshot: Snapshot | undefined;
  #reading: Promise<Snapshot> | undefined;

  constructor(options: TemporalKeyringOptions) {
    const { client } = options;
    this.#client = typeof client === 'function' ? client : () => client;
    this.#taskQueue = options.taskQueue;
    this.#workflowId = keyringWorkflowId(options.taskQueue);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  async current(options: { fresh?: boolean } = {}): Promise<CurrentKey> {
    const snapshot = (!options.fresh && this.#recent()) || (await this.#read());
    return { key: snapshot.current, wrapBy: snapshot.askedAt + 2 * snapshot.refreshMs };
  }

  async byId(id: string): Promise<KeyEncryptionKey | undefined> {
    return this.#recent()?.keys.get(id) ?? (await this.#read()).keys.get(id);
  }

  /** What was read less than `refreshMs` ago: a key the keyring retired is not used past that. */
  #recent(): Snapshot | undefined {
    const snapshot = this.#snapshot;
    return snapshot && performance.now() - snapshot.askedAt < snapshot.refreshMs ? snapshot : undefined;
  }

  /** One read at a time: callers waiting meanwhile share it. */
  async #read(): Promise<Snapshot> {
    this.#reading ??= this.#fetch().finally(() => (this.#reading = undefined));
    return await this.#reading;
  }

  async #fetch(): Promise<Snapshot> {
    const askedAt = performance.now();
    const client = this.#client();
    let view: KeyringView;
    try {
      view = await client.connection.withDeadline(Date.now() + this.#timeoutMs, () => this.#view(client));
    } catch (error) {
      throw new KeyringUnavailableError(
        `the keyring ${this.#workflowId} did not answer within ${this.#timeoutMs / 1000} s: is a worker running on task queue '${this.#taskQueue}'?`,
        { cause: error },
      );
    }
    const keys = new Map(
      view.keys.map((entry) => [entry.id, { id: entry.id, key: Buffer.from(entry.key, 'base64') }]),
    );
    const current = keys.get(view.keys.at(-1)?.id ?? '');
    if (!current) throw new KeyringUnavailableError(`the keyring ${this.#workflowId} holds no key`);
    const snapshot = { keys, current, refreshMs: view.refreshMs, askedAt };
    this.#snapshot = snapshot;
    // Not kept in memory past its use either: an idle process holds no retired key.
    setTimeout(() => {
      if (this.#snapshot === snapshot) this.#snapshot = undefined;
    }, view.refreshMs).unref();
    return snapshot;
  }

  /** The keyring's view; it is started (or joined) when a query finds none with keys. */
  async #view(client: Client): Promise<KeyringView> {
    const view = await client.workflow
      .getHandle(this.#workflowId)
      .query(keyringQuery)
      .catch(() => undefined);
    if (view && view.keys.length > 0) return view;
    return await client.workflow.executeUpdateWithStart(keyringUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation<KeyringWorkflow>(KEYRING_WORKFLOW_TYPE, {
        workflowId: this.#workflowId,
        taskQueue: this.#taskQueue,
        args: [{}],
        ...keyringMetadata(this.#taskQueue),
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
  }
}
