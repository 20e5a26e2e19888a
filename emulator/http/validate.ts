import { type RequestContext } from './context';
import { invalid } from './problems';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_TYPES = /^(application\/json|text\/json|application\/[\w.+-]+\+json)\s*(;|$)/i;

/** True for the uuid text form. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A uuid path parameter, or a 400 naming it. */
export function uuidParam(context: RequestContext, name: string): string {
  const value = context.params[name] ?? '';
  if (!isUuid(value)) invalid({ [name]: [`The value '${value}' is not valid.`] });
  return value.toLowerCase();
}

/** An int32 query parameter within bounds, or a 400 naming it. */
export function intQuery(
  context: RequestContext,
  name: string,
  bounds: { min: number; max: number },
  fallback: number,
): number {
  const raw = context.query.get(name);
  if (raw === null) return fallback;
  if (!/^-?\d+$/.test(raw)) invalid({ [name]: [`The value '${raw}' is not valid.`] });
  const value = Number(raw);
  if (value < bounds.min || value > bounds.max) {
    invalid({ [name]: [`The field ${name} must be between ${bounds.min} and ${bounds.max}.`] });
  }
  return value;
}

/** An enumerated query parameter, or a 400 naming it. */
export function enumQuery<T extends string>(
  context: RequestContext,
  name: string,
  values: readonly T[],
): T | undefined {
  const raw = context.query.get(name);
  if (raw === null) return undefined;
  const match = values.find((value) => value.toLowerCase() === raw.toLowerCase());
  if (!match) invalid({ [name]: [`The value '${raw}' is not valid.`] });
  return match;
}

/** A boolean query parameter, or a 400 naming it. */
export function boolQuery(context: RequestContext, name: string): boolean | undefined {
  const raw = context.query.get(name);
  if (raw === null) return undefined;
  if (!/^(true|false)$/i.test(raw)) invalid({ [name]: [`The value '${raw}' is not valid.`] });
  return raw.toLowerCase() === 'true';
}

/**
 * The JSON body of a request: accepted as application/json, text/json or application/*+json.
 * Anything else, an empty body, malformed JSON or a non-object answers 400.
 */
export function jsonBody(context: RequestContext): Record<string, unknown> {
  const contentType = context.headers['content-type'] ?? '';
  if (!JSON_TYPES.test(contentType)) {
    invalid({
      'Content-Type': [
        `Unsupported content type '${contentType}': send application/json, text/json or application/*+json.`,
      ],
    });
  }
  if (context.body.length === 0) invalid({ $: ['A non-empty request body is required.'] });
  let parsed: unknown;
  try {
    parsed = JSON.parse(context.body.toString('utf8'));
  } catch {
    invalid({ $: ['The request body is not valid JSON.'] });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    invalid({ $: ['The request body must be a JSON object.'] });
  }
  return parsed as Record<string, unknown>;
}

/** A required non-empty string field of a body, or a message for the errors map. */
export function requiredString(
  body: Record<string, unknown>,
  name: string,
  errors: Record<string, string[]>,
): string {
  const value = body[name];
  if (typeof value === 'string' && value.length > 0) return value;
  errors[name] = [
    value === undefined || value === null || value === ''
      ? `The ${name} field is required.`
      : `The ${name} field must be a string.`,
  ];
  return '';
}

/** True for an absolute URI; the wildcard `*` is accepted anywhere. */
export function isAbsoluteUri(value: string): boolean {
  try {
    new URL(value.replaceAll('*', 'wildcard'));
    return true;
  } catch {
    return false;
  }
}
