import { type Payload } from '@temporalio/common';
import { AesGcmPayloadCodec, PayloadDecryptionError } from '../../codec/aes-gcm-codec';
import { EncryptionKeysError, newEncryptionKeyEntry, parseEncryptionKeys } from '../../codec/encryption-keys';

const json = (value: unknown): Payload => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(value)),
});
const text = (payload: Payload | undefined) => Buffer.from(payload?.data ?? []).toString();

describe('payload codec: AES-256-GCM with rotating keys', () => {
  const key1 = newEncryptionKeyEntry('k1');
  const key2 = newEncryptionKeyEntry('k2');

  it('hides the payload and restores it exactly, metadata included', async () => {
    const codec = new AesGcmPayloadCodec(parseEncryptionKeys(key1));
    const [encoded] = await codec.encode([json({ familyName: 'Lovelace' })]);
    expect(text(encoded)).not.toContain('Lovelace');
    expect(Buffer.from(encoded?.metadata?.['encryption-key-id'] ?? []).toString()).toBe('k1');
    const [decoded] = await codec.decode([encoded as Payload]);
    expect(text(decoded)).toBe('{"familyName":"Lovelace"}');
    expect(Buffer.from(decoded?.metadata?.encoding ?? []).toString()).toBe('json/plain');
  });

  it('decodes payloads of key 1 after key 2 is added first, and writes new ones under key 2', async () => {
    const [old] = await new AesGcmPayloadCodec(parseEncryptionKeys(key1)).encode([json('before')]);
    const rotated = new AesGcmPayloadCodec(parseEncryptionKeys(`${key2},${key1}`));
    expect(text((await rotated.decode([old as Payload]))[0])).toBe('"before"');
    const [fresh] = await rotated.encode([json('after')]);
    expect(Buffer.from(fresh?.metadata?.['encryption-key-id'] ?? []).toString()).toBe('k2');
  });

  it('names a missing key id clearly, and refuses an altered payload', async () => {
    const [old] = await new AesGcmPayloadCodec(parseEncryptionKeys(key1)).encode([json('x')]);
    const without = new AesGcmPayloadCodec(parseEncryptionKeys(key2));
    await expect(without.decode([old as Payload])).rejects.toThrow(
      new PayloadDecryptionError("payload encrypted with key 'k1', which IDV_ENCRYPTION_KEYS does not hold"),
    );
    // One bit flipped (a byte set to a fixed value left it as it was once in 256 runs).
    const data = Buffer.from(old?.data ?? []);
    data[20] = (data[20] as number) ^ 1;
    const altered = { ...old, data };
    const codec = new AesGcmPayloadCodec(parseEncryptionKeys(key1));
    await expect(codec.decode([altered])).rejects.toBeInstanceOf(PayloadDecryptionError);
  });

  it('passes payloads that are not encrypted through on decode', async () => {
    const codec = new AesGcmPayloadCodec(parseEncryptionKeys(key1));
    expect(text((await codec.decode([json('plain')]))[0])).toBe('"plain"');
  });

  it.each([
    ['empty', '', 'IDV_ENCRYPTION_KEYS holds no key'],
    ['no id', 'nokey', 'IDV_ENCRYPTION_KEYS: entry 1 must be <id>:<base64 key>'],
    ['short', 'k1:c2hvcnQ=', "IDV_ENCRYPTION_KEYS: key 'k1' must be 32 bytes in base64"],
    ['repeated', `${key1},${key1}`, "IDV_ENCRYPTION_KEYS: key id 'k1' appears twice"],
  ])('refuses a key list (%s) with one clear line, no key material', (_, value, message) => {
    expect(() => parseEncryptionKeys(value)).toThrow(EncryptionKeysError);
    expect(() => parseEncryptionKeys(value)).toThrow(message);
    const error = (() => {
      try {
        parseEncryptionKeys(value);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).not.toContain(key1.slice(3));
  });
});
