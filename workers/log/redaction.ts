/**
 * What never reaches a log line (README, Privacy model): secrets and the person's data. Two
 * declarative lists: field names censored wherever they appear (pino `redact` paths, top level
 * and one level down), and patterns scrubbed from every string (messages, error texts).
 */

/** Fields whose values are secrets or personal data, censored whatever they hold. */
export const redactedFields = [
  // secrets
  'apiKey',
  'authorization',
  'Authorization',
  'token',
  'secret',
  'password',
  'resultsAccessKey',
  'encryptionKeys',
  'codecToken',
  'receiverSecret',
  // the person
  'providerInput',
  'identity',
  'person',
  'document',
  'attachments',
  'input',
] as const;

/** pino `redact` paths for {@link redactedFields}: at the top level and one level down. */
export const redactPaths: string[] = redactedFields.flatMap((field) => [field, `*.${field}`]);

/** Replacement text of a censored value. */
export const CENSORED = '[redacted]';

/** Patterns scrubbed from strings, each with its replacement. */
const scrubRules: ReadonlyArray<readonly [RegExp, string]> = [
  // the receiver's path token: /agent/<tenant>/<token>
  [/(\/agent\/[^/\s?#"']+\/)[^/\s?#"']+/g, `$1${CENSORED}`],
  // query strings (a redirect return's results access key, signed URLs)
  [/(https?:\/\/[^\s?#"']*)\?[^\s#"']*/g, `$1?${CENSORED}`],
  // credentials in URLs (postgres://user:password@host)
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/\s@"']+:)[^@\s"']+@/gi, `$1${CENSORED}@`],
  // bearer tokens
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/g, `$1${CENSORED}`],
  // payload keys as configured: <id>:<base64 of 32 bytes>
  [/\b([\w.-]+:)[A-Za-z0-9+/]{43}=/g, `$1${CENSORED}`],
];

/** `text` with every {@link scrubRules} match replaced. */
export function scrub(text: string): string {
  let result = text;
  for (const [pattern, replacement] of scrubRules) result = result.replace(pattern, replacement);
  return result;
}
