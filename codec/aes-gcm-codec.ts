import { type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { gcmOpen, gcmSeal } from './aes-gcm';
import { type EncryptionKey } from './encryption-keys';

/** Metadata of an encrypted payload; everything else of the original payload is inside. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

/** A payload names a key this process does not hold (or it was tampered with). */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';
}

/**
 * AES-256-GCM over whole payloads (metadata and data, protobuf-encoded), the key id in the
 * clear metadata and bound as additional data. New payloads use the first (newest) key; any
 * configured key decodes. Payloads not encrypted pass through both ways unchanged on decode.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  readonly #current: EncryptionKey;
  readonly #byId: Map<string, Buffer>;

  constructor(keys: readonly EncryptionKey[]) {
    const [current] = keys;
    if (!current) throw new Error('AesGcmPayloadCodec needs at least one key');
    this.#current = current;
    this.#byId = new Map(keys.map((key) => [key.id, key.key]));
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve().then(() => payloads.map((payload) => this.#encrypt(payload)));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve().then(() => payloads.map((payload) => this.#decrypt(payload)));
  }

  #encrypt(payload: Payload): Payload {
    const { id, key } = this.#current;
    const data = gcmSeal(key, id, temporal.api.common.v1.Payload.encode(payload).finish());
    return {
      metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(id) },
      data,
    };
  }

  #decrypt(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    if (!encoding || Buffer.from(encoding).toString() !== ENCRYPTED_ENCODING) return payload;
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    const id = idBytes ? Buffer.from(idBytes).toString() : '';
    const key = this.#byId.get(id);
    if (!key)
      throw new PayloadDecryptionError(
        `payload encrypted with key '${id || '(none)'}', which IDV_ENCRYPTION_KEYS does not hold`,
      );
    const plain = gcmOpen(key, id, payload.data ?? new Uint8Array());
    if (!plain)
      throw new PayloadDecryptionError(
        `payload under key '${id}' does not authenticate (truncated, wrong key or altered)`,
      );
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
