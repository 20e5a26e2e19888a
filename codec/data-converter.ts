import { type DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec';
import { type EncryptionKey } from './encryption-keys';

/** Path of the failure converter module, for workers, bundles and clients. */
export const failureConverterPath = require.resolve('./failure-converter');

/** The data converter of every worker, client and replay: encrypted payloads and failure texts. */
export function encryptingDataConverter(keys: readonly EncryptionKey[]): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(keys)], failureConverterPath };
}
