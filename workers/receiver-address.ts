import { type IdvConfig } from './config';
import { type StackInfo } from './dev/stack-file';
import { devReceiverSecret } from './encryption-keys-source';

/** Where the receiver is reached, and the secret its path tokens derive from. */
export interface ReceiverAddress {
  url: string;
  secret: string;
}

/**
 * The receiver that workers and commands make URLs for: `IDV_RECEIVER_URL` and
 * `IDV_RECEIVER_SECRET`, else the `idv dev` stack's (its URL from the stack file, its secret from
 * the data dir). Undefined when the URL or the secret is unknown.
 */
export async function receiverAddressOf(
  config: IdvConfig,
  stack: StackInfo | undefined,
): Promise<ReceiverAddress | undefined> {
  const url = config.receiverUrl ?? stack?.receiverUrl;
  const secret =
    config.receiverSecret ?? (stack?.receiverUrl ? await devReceiverSecret(config.dataDir) : undefined);
  return url && secret ? { url, secret } : undefined;
}
