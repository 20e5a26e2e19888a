import { type Client } from '@temporalio/client';
import { type Payload } from '@temporalio/common';
import { AesGcmPayloadCodec } from '../../codec/aes-gcm-codec';
import { type EncryptionKey } from '../../codec/encryption-keys';
import { isSealed, type Sealed } from '../../codec/sealed';

/** Every payload in a history (anything shaped like one: metadata with an encoding). */
export function payloadsIn(value: unknown, into: Payload[] = []): Payload[] {
  if (Array.isArray(value)) for (const item of value) payloadsIn(item, into);
  else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const record = value as Record<string, unknown>;
    const metadata = record.metadata as Record<string, unknown> | undefined | null;
    if (metadata && typeof metadata === 'object' && metadata.encoding instanceof Uint8Array)
      into.push(record);
    else for (const item of Object.values(record)) payloadsIn(item, into);
  }
  return into;
}

/** Sealed values inside decoded JSON values. */
export function sealedIn(value: unknown, into: Sealed[] = []): Sealed[] {
  if (isSealed(value)) into.push(value);
  else if (Array.isArray(value)) for (const item of value) sealedIn(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) sealedIn(item, into);
  return into;
}

/** The sealed values in a workflow's history, its payloads decoded with the payload keys. */
export async function sealedInHistory(
  client: Client,
  workflowId: string,
  payloadKeys: readonly EncryptionKey[],
): Promise<Sealed[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const decoded = await new AesGcmPayloadCodec(payloadKeys).decode(payloadsIn(history));
  return decoded.flatMap((payload) => {
    try {
      return sealedIn(JSON.parse(Buffer.from(payload.data ?? []).toString('utf8')));
    } catch {
      return [];
    }
  });
}
