import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Shortest receiver secret accepted: the tenants' tokens are only as unguessable as it is. */
export const MIN_RECEIVER_SECRET_LENGTH = 32;

/** Thrown when the receiver's secret is missing or too short to make unguessable tokens. */
export class ReceiverSecretError extends Error {
  override readonly name = 'ReceiverSecretError';
}

/**
 * The tenants' path tokens, derived from one secret (HMAC-SHA256 of the tenant): the receiver
 * checks a delivery without a list of tenants, so a wrong token and an unknown tenant look alike,
 * and the registry's worker makes the same URL without storing tokens anywhere.
 */
export class TenantTokens {
  readonly #secret: string;

  constructor(secret: string | undefined) {
    if (!secret || secret.length < MIN_RECEIVER_SECRET_LENGTH)
      throw new ReceiverSecretError(
        `IDV_RECEIVER_SECRET must be at least ${MIN_RECEIVER_SECRET_LENGTH} characters (make one with \`openssl rand -hex 32\`)`,
      );
    this.#secret = secret;
  }

  /** The tenant's token: 43 URL-safe characters. */
  tokenOf(tenant: string): string {
    return createHmac('sha256', this.#secret).update(`idv-receiver:${tenant}`, 'utf8').digest('base64url');
  }

  /** Constant-time check of a token from a request path. */
  matches(tenant: string, candidate: string): boolean {
    const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
    return timingSafeEqual(digest(candidate), digest(this.tokenOf(tenant)));
  }

  /** The webhook URL the platform must POST the tenant's events to. */
  webhookUrl(publicUrl: string, tenant: string): string {
    return `${publicUrl.replace(/\/+$/, '')}/agent/${encodeURIComponent(tenant)}/${this.tokenOf(tenant)}`;
  }
}
