import { type ZodType } from 'zod';
import { ValidationError } from './errors';

/**
 * Checks an operation's arguments before anything is sent. Throws a {@link ValidationError}
 * (`sent: false`) whose `errors` names each bad field (prefixed by `field` for a single
 * argument), as the service's own 400 would.
 */
export function checkInput<T>(operation: string, schema: ZodType<T>, value: unknown, field?: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) {
    const name = [field, ...issue.path].filter((part) => part !== undefined).join('.') || '(arguments)';
    (errors[name] ??= []).push(issue.message);
  }
  throw new ValidationError({ operation, errors, sent: false });
}
