/**
 * What never reaches a log line (README, Privacy model): secrets and the person's data. Two
 * declarative lists: field names censored at any depth (also as pino `redact` paths), and
 * patterns scrubbed from every string (messages, fields, error texts, and the written line).
 * Ids (workflow, session, connection, data key), statuses and error codes stay readable, as the
 * privacy model says; a business reference that looks like personal data is refused at start.
 */

/** Fields whose values are secrets or personal data, censored whatever they hold. */
export const redactedFields = [
  // secrets
  'apiKey',
  'apiKeys',
  'xApiKey',
  'agentKeys',
  'authorization',
  'cookie',
  'token',
  'tokens',
  'accessToken',
  'idToken',
  'refreshToken',
  'responseToken',
  'secret',
  'secrets',
  'password',
  'privateKey',
  'credentials',
  'resultsAccessKey',
  'encryptionKeys',
  'keys',
  'dataKey',
  'dataKeys',
  'codecToken',
  'receiverSecret',
  // the person
  'input',
  'providerInput',
  'identity',
  'identityData',
  'person',
  'document',
  'match',
  'providerOutput',
  'attachments',
  'content',
] as const;

/** Replacement text of a censored value. */
export const CENSORED = '[redacted]';

/** Patterns scrubbed from strings, each with its replacement. A backslash ends a match (JSON escapes). */
const scrubRules: ReadonlyArray<readonly [RegExp, string]> = [
  // the receiver's path tokens: /agent/<tenant>/<token>, /return/<reference>/<token>
  [/(\/(?:agent|return)\/[^/\s?#"'\\]+\/)[^/\s?#"'\\]+/g, `$1${CENSORED}`],
  // the codec server's path token: http://host/t/<token>
  [/(https?:\/\/[^/\s"'\\]+\/t\/)[^/\s?#"'\\]+/g, `$1${CENSORED}`],
  // query strings of URLs and paths (a redirect return's results access key, signed URLs)
  [/((?:https?:\/\/|\/)[^\s?#"'\\]*)\?[^\s#"'\\]+/g, `$1?${CENSORED}`],
  // a query string on its own: ?key=…
  [/\?[\w.~%-]+=[^\s#"'\\]*/g, `?${CENSORED}`],
  // credentials in URLs (postgres://user:password@host)
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/\s@"'\\]+:)[^@\s"'\\]+@/gi, `$1${CENSORED}@`],
  // bearer tokens
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/g, `$1${CENSORED}`],
  // payload keys as configured: <id>:<base64 of 32 bytes>
  [/\b([\w.-]+:)[A-Za-z0-9+/]{43}=/g, `$1${CENSORED}`],
];

/** `apiKey`, `api_key`, `API-KEY` alike. */
const normalized = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');
const censoredKeys = new Set<string>(redactedFields.map(normalized));

/** pino `redact` paths for {@link redactedFields}: the top level and one level down (child bindings included). */
export const redactPaths: string[] = redactedFields.flatMap((field) => [field, `*.${field}`]);

/** Whether a field of this name is censored, however it is spelled. */
export function isRedactedField(key: string): boolean {
  return censoredKeys.has(normalized(key));
}

/** `text` with every {@link scrubRules} match replaced. */
export function scrub(text: string): string {
  let result = text;
  for (const [pattern, replacement] of scrubRules) result = result.replace(pattern, replacement);
  return result;
}

/** Options of {@link redactValue}. */
export interface RedactOptions {
  /** Keep an error's (scrubbed) stack. @default false */
  stacks?: boolean;
}

/** Nesting past this is cut: a log event needs no deeper structure. */
const MAX_DEPTH = 8;

/**
 * `value` as it may be logged: listed fields censored at any depth, strings scrubbed, an error as
 * its type, scrubbed message and code (never its cause or other properties: they may quote a
 * service's answer), bytes as their length only.
 */
export function redactValue(value: unknown, options: RedactOptions = {}): unknown {
  return walk(value, options.stacks ?? false, 0, new WeakSet());
}

function walk(value: unknown, stacks: boolean, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return scrub(value);
  if (typeof value !== 'object' || value === null) return typeof value === 'bigint' ? String(value) : value;
  if (value instanceof Error) return errorFields(value, stacks);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
  if (value instanceof Date) return value.toISOString();
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[nested]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => walk(item, stacks, depth + 1, seen));
    const result: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value))
      result[key] = isRedactedField(key) ? CENSORED : walk(field, stacks, depth + 1, seen);
    return result;
  } finally {
    seen.delete(value);
  }
}

function errorFields(error: Error, stacks: boolean): Record<string, unknown> {
  const { code, type } = error as { code?: unknown; type?: unknown };
  return {
    type: error.name,
    message: scrub(error.message),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    // Temporal's ApplicationFailure: the failure type the activity chose (`RetryableApiError`, …).
    ...(typeof type === 'string' ? { failureType: type } : {}),
    ...(stacks && error.stack ? { stack: scrub(error.stack) } : {}),
  };
}
