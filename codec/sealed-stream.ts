import { gcmOpen, gcmSeal } from './aes-gcm';

/** Marks a sealed stream. */
const MAGIC = Buffer.from('IDVSEAL1');
/** Plaintext per frame: small enough to stream, large enough that the 32 bytes per frame don't matter. */
const FRAME_BYTES = 64 * 1024;
const LENGTH_BYTES = 4;
/** A sealed frame: iv (12) | at most a frame of ciphertext | tag (16); a longer length is refused, not buffered. */
const MAX_SEALED_FRAME = 12 + FRAME_BYTES + 16;

/** A sealed stream is cut short, reordered or altered. */
export class SealedStreamError extends Error {
  override readonly name = 'SealedStreamError';
}

const frameAad = (aad: string, seq: number, last: boolean) => `${aad}:${seq}:${last ? 'last' : 'more'}`;

/**
 * Seals content as it streams: `MAGIC`, then frames `length (4 bytes) | iv | ciphertext | tag`
 * of at most 64 KiB of plaintext each, each bound to its place and to whether it is the last,
 * so a stream cut short or reordered does not open.
 */
export async function* sealStream(
  key: Buffer,
  aad: string,
  content: AsyncIterable<Uint8Array>,
): AsyncGenerator<Buffer> {
  yield MAGIC;
  let parts: Buffer[] = [];
  let pendingBytes = 0;
  let seq = 0;
  const frame = (plain: Buffer, last: boolean) => {
    const sealed = gcmSeal(key, frameAad(aad, seq, last), plain);
    seq += 1;
    const length = Buffer.alloc(LENGTH_BYTES);
    length.writeUInt32BE(sealed.length);
    return Buffer.concat([length, sealed]);
  };
  for await (const chunk of content) {
    parts.push(Buffer.from(chunk));
    pendingBytes += chunk.length;
    // Keep at least one byte back: the last frame must be known as last when it is sealed.
    if (pendingBytes <= FRAME_BYTES) continue;
    let pending = Buffer.concat(parts, pendingBytes);
    while (pending.length > FRAME_BYTES) {
      yield frame(pending.subarray(0, FRAME_BYTES), false);
      pending = pending.subarray(FRAME_BYTES);
    }
    parts = [pending];
    pendingBytes = pending.length;
  }
  yield frame(Buffer.concat(parts, pendingBytes), true);
}

/**
 * Opens what {@link sealStream} sealed, as it streams. Content that is not a sealed stream, cut
 * short, reordered or altered fails with {@link SealedStreamError} (a cut is known at the end:
 * what was read before it was authentic).
 */
export async function* openStream(
  key: Buffer,
  aad: string,
  stored: AsyncIterable<Uint8Array>,
): AsyncGenerator<Buffer> {
  let buffer = Buffer.alloc(0);
  let marked = false;
  let seq = 0;
  let ended = false;
  for await (const chunk of stored) {
    buffer = Buffer.concat([buffer, chunk]);
    if (!marked) {
      if (buffer.length < MAGIC.length) continue;
      if (!buffer.subarray(0, MAGIC.length).equals(MAGIC)) throw new SealedStreamError('not a sealed stream');
      marked = true;
      buffer = buffer.subarray(MAGIC.length);
    }
    while (buffer.length >= LENGTH_BYTES) {
      const length = buffer.readUInt32BE(0);
      if (length > MAX_SEALED_FRAME) throw new SealedStreamError(`frame ${seq} claims ${length} bytes`);
      if (buffer.length < LENGTH_BYTES + length) break;
      if (ended) throw new SealedStreamError('data after the last frame');
      const body = buffer.subarray(LENGTH_BYTES, LENGTH_BYTES + length);
      buffer = buffer.subarray(LENGTH_BYTES + length);
      const more = gcmOpen(key, frameAad(aad, seq, false), body);
      const plain = more ?? gcmOpen(key, frameAad(aad, seq, true), body);
      if (!plain)
        throw new SealedStreamError(`frame ${seq} does not open (altered, reordered or another key)`);
      ended = more === undefined;
      seq += 1;
      if (plain.length > 0) yield plain;
    }
  }
  if (!marked) throw new SealedStreamError('not a sealed stream (empty or cut short)');
  if (!ended || buffer.length > 0) throw new SealedStreamError('the sealed content is cut short');
}
