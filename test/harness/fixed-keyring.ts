import { randomBytes, randomUUID } from 'node:crypto';
import { type CurrentKey, type KeyEncryptionKey, type Keyring } from '../../codec/keyring';

/**
 * A keyring held in this process, for tests of the data keys that run no worker (the deployment's
 * keyring is a workflow: `TemporalKeyring`). `rotate` and `retire` play its rotation's steps.
 */
export class FixedKeyring implements Keyring {
  #keys: KeyEncryptionKey[] = [];
  #retired: string[] = [];

  constructor() {
    this.rotate();
  }

  /** Every key it holds, the current last. */
  get keys(): readonly KeyEncryptionKey[] {
    return this.#keys;
  }

  /** A new key becomes current; the older ones stay until retired. */
  rotate(): KeyEncryptionKey {
    const key = { id: `kek-${randomUUID().slice(0, 8)}`, key: randomBytes(32) };
    this.#keys = [...this.#keys, key];
    return key;
  }

  /** The ids of the keys it forgot, oldest first. */
  get retiredIds(): readonly string[] {
    return this.#retired;
  }

  /** Holds a key given (it becomes current). */
  add(key: KeyEncryptionKey): void {
    this.#keys = [...this.#keys, key];
  }

  /** Forgets every key but the current one. */
  retire(): void {
    this.#retired = [...this.#retired, ...this.#keys.slice(0, -1).map((key) => key.id)];
    this.#keys = this.#keys.slice(-1);
  }

  current(): Promise<CurrentKey> {
    return Promise.resolve({ key: this.#keys.at(-1) as KeyEncryptionKey, wrapBy: Number.POSITIVE_INFINITY });
  }

  byId(id: string): Promise<KeyEncryptionKey | undefined> {
    return Promise.resolve(this.#keys.find((key) => key.id === id));
  }
}
