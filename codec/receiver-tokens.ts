import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Shortest receiver secret accepted: the receiver's path tokens are only as unguessable as it is. */
export const MIN_RECEIVER_SECRET_LENGTH = 32;

/** Thrown when the receiver's secret is missing or too short to make unguessable tokens. */
export class ReceiverSecretError extends Error {
  override readonly name = 'ReceiverSecretError';
}

/**
 * What a token opens: a tenant's deliveries, or one verification's return. Each has its own
 * prefix, so a token of one kind never opens the other.
 */
const PURPOSES = { tenant: 'idv-receiver', return: 'idv-return' } as const;

/**
 * The receiver's path tokens, derived from one secret (HMAC-SHA256 of what the token opens): the
 * receiver checks a request without a list of tenants or verifications, so a wrong token and an
 * unknown name look alike, and whoever holds the secret (the registry's worker, a business
 * service) makes the same URL without storing tokens anywhere.
 */
export class ReceiverTokens {
  readonly #secret: string;

  constructor(secret: string | undefined) {
    if (!secret || secret.length < MIN_RECEIVER_SECRET_LENGTH)
      throw new ReceiverSecretError(
        `IDV_RECEIVER_SECRET must be at least ${MIN_RECEIVER_SECRET_LENGTH} characters (make one with \`openssl rand -hex 32\`)`,
      );
    this.#secret = secret;
  }

  /** The tenant's token: 43 URL-safe characters. */
  tenantToken(tenant: string): string {
    return this.#token('tenant', tenant);
  }

  /** Constant-time check of a tenant's token from a request path. */
  matchesTenant(tenant: string, candidate: string): boolean {
    return sameText(candidate, this.tenantToken(tenant));
  }

  /** The webhook URL the platform must POST the tenant's events to. */
  webhookUrl(publicUrl: string, tenant: string): string {
    return `${baseOf(publicUrl)}/agent/${encodeURIComponent(tenant)}/${this.tenantToken(tenant)}`;
  }

  /** The token of a verification's return (by its business reference): 43 URL-safe characters. */
  returnToken(reference: string): string {
    return this.#token('return', reference);
  }

  /** Constant-time check of a return's token from a request path. */
  matchesReturn(reference: string, candidate: string): boolean {
    return sameText(candidate, this.returnToken(reference));
  }

  /** Where the service sends the user back to: `<publicUrl>/return/<reference>/<token>`. */
  returnUrl(publicUrl: string, reference: string): string {
    return `${baseOf(publicUrl)}/return/${encodeURIComponent(reference)}/${this.returnToken(reference)}`;
  }

  #token(purpose: keyof typeof PURPOSES, subject: string): string {
    return createHmac('sha256', this.#secret)
      .update(`${PURPOSES[purpose]}:${subject}`, 'utf8')
      .digest('base64url');
  }
}

/** Compared as digests: equal lengths whatever the candidate, so the time says nothing. */
function sameText(candidate: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(candidate), digest(expected));
}

function baseOf(publicUrl: string): string {
  return publicUrl.replace(/\/+$/, '');
}
