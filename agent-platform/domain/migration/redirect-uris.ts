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

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What a `*` of a registered URI may stand for, read narrowly (the interface says only that `*`
 * is accepted): in the host, one label's characters; in the path, anything but a query or
 * fragment (it may cross `/`); in the query, anything but a fragment. Narrow on purpose: a
 * wrong "already allowed" would break the redirect, a needless registration costs nothing.
 */
function wildcardPattern(uri: string): RegExp {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/is.exec(uri);
  const origin = match?.[1] ?? '';
  const rest = match ? (match[2] ?? '') : uri;
  const queryAt = rest.indexOf('?');
  let offset = 0;
  const restPattern = rest
    .split('*')
    .map((part, index) => {
      const inQuery = queryAt >= 0 && offset > queryAt;
      offset += part.length + 1;
      return index === 0 ? escaped(part) : `${inQuery ? '[^#]*' : '[^?#]*'}${escaped(part)}`;
    })
    .join('');
  const originPattern = origin.split('*').map(escaped).join('[^./:@?#]*');
  return new RegExp(`^${originPattern}${restPattern}$`);
}

/**
 * The registered redirect URI that already allows `needed`: the same URI (scheme and host in
 * any case, default port or not), or one with the wildcard `*` (interface, part 4; see
 * {@link wildcardPattern}). Undefined when none does.
 */
export function coveringRedirectUri(needed: string, registered: readonly string[]): string | undefined {
  const target = normalised(needed);
  return registered.find((uri) =>
    uri.includes('*')
      ? wildcardPattern(lowerOrigin(normalised(uri))).test(target)
      : normalised(uri) === target,
  );
}
