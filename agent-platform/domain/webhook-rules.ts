/** Notification webhooks a tenant of the earlier platform may have. */
export const MAX_NOTIFICATION_WEBHOOKS = 5;

/** A webhook a registration is checked against (registered, or desired by the registry). */
export interface KnownWebhook {
  url: string;
  type: string;
}

/**
 * Why a webhook registration must be refused before any API call, or undefined: a URL that is
 * not absolute http(s), a type other than Notification (Endorser webhooks are announced, not
 * available), a sixth Notification webhook of the tenant, or the same URL twice. Without a URL
 * (the receiver's own, made later) only the type and the count are checked.
 */
export function webhookRegistrationProblem(
  request: { url?: string | undefined; type: string },
  known: readonly KnownWebhook[],
): string | undefined {
  if (request.url !== undefined) {
    const problem = webhookUrlProblem(request.url);
    if (problem) return problem;
  }
  if (/endorser/i.test(request.type))
    return 'Endorser webhooks are announced by the platform but not available yet: register a Notification webhook';
  if (request.type !== 'Notification') return `type must be Notification (got an unknown type)`;
  const notifications = known.filter((webhook) => webhook.type === 'Notification');
  const url = request.url === undefined ? undefined : normalized(request.url);
  if (url !== undefined && notifications.some((webhook) => normalized(webhook.url) === url))
    return 'this URL is registered already';
  if (notifications.length >= MAX_NOTIFICATION_WEBHOOKS)
    return `a tenant has at most ${MAX_NOTIFICATION_WEBHOOKS} Notification webhooks: remove one first`;
  return undefined;
}

/** Why a webhook URL must be refused (not absolute http(s), longer than 2000), or undefined. */
export function webhookUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'url must be an absolute http(s) URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be an absolute http(s) URL';
  if (value.length > 2_000) return 'url must be at most 2000 characters';
  return undefined;
}

/** Whether two webhook URLs are the same address however they are written. */
export function sameWebhookUrl(one: string, other: string): boolean {
  return normalized(one) === normalized(other);
}

/** The same address however it is written (host case, default port, an empty path). */
function normalized(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}
