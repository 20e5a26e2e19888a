import { ReceiverTokens } from '../../codec/receiver-tokens';

/** Options of {@link receiverReturnUrl}. */
export interface ReceiverReturnUrlOptions {
  /** The receiver's public address (`IDV_RECEIVER_URL`), e.g. `https://idv.example`. */
  receiverUrl: string;
  /** The receiver's secret (`IDV_RECEIVER_SECRET`, 32+ characters); throws `ReceiverSecretError` otherwise. */
  receiverSecret: string;
  /** The verification's business reference. */
  reference: string;
}

/**
 * The verification's `redirectUrl` when the user returns through the receiver:
 * `<receiverUrl>/return/<reference>/<token>`, the token bound to the reference by the receiver's
 * secret, so nobody can make the return of a reference they were not handed.
 */
export function receiverReturnUrl(options: ReceiverReturnUrlOptions): string {
  return new ReceiverTokens(options.receiverSecret).returnUrl(options.receiverUrl, options.reference);
}
