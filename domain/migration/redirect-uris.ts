/** The placeholder of a redirect URI template replaced by each policy's slug. */
export const POLICY_PLACEHOLDER = '{policy}';

/** A policy's name as a URL path segment: lower case, runs of other characters as `-`. */
export function policySlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'policy';
}

/** The redirect URI of a policy: the template with `{policy}` replaced, or the template itself. */
export function redirectUriFor(template: string, policyName: string): string {
  return template.split(POLICY_PLACEHOLDER).join(policySlug(policyName));
}

function normalised(uri: string): string {
  try {
    return new URL(uri).href;
  } catch {
    return uri;
  }
}

/** Scheme and host in lower case (they are case-insensitive; the path is not). */
function lowerOrigin(uri: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/is.exec(uri);
  return match ? `${(match[1] ?? '').toLowerCase()}${match[2] ?? ''}` : uri;
}

/**
 * The registered redirect URI that already allows `needed`: the same URI (scheme and host in
 * any case, default port or not), or one with the wildcard `*` (interface, part 4), which
 * stands for any run of characters. Undefined when none does.
 */
export function coveringRedirectUri(needed: string, registered: readonly string[]): string | undefined {
  const target = normalised(needed);
  return registered.find((uri) => {
    if (!uri.includes('*')) return normalised(uri) === target;
    const pattern = lowerOrigin(normalised(uri))
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${pattern}$`).test(target);
  });
}
