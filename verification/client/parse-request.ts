import {
  type ParsedVerificationRequest,
  type VerificationRequest,
  verificationRequestSchema,
} from '../domain/verification';
import { durationProblem } from '../../common/durations';

/** Thrown when a verification request is invalid; `errors` names each field. Nothing was started. */
export class InvalidVerificationRequestError extends Error {
  override readonly name = 'InvalidVerificationRequestError';
  constructor(readonly errors: Record<string, string[]>) {
    super(
      `invalid verification request: ${Object.entries(errors)
        .map(([field, messages]) => `${field} ${messages.join('; ')}`)
        .join(', ')}`,
    );
  }
}

/** Validates a request and resolves its defaults into the workflow's plain-JSON input. */
export function parseVerificationRequest(request: VerificationRequest): ParsedVerificationRequest {
  const errors: Record<string, string[]> = {};
  // Text a person wrote: a bare number is ambiguous (the workflow itself still reads it as ms).
  for (const field of ['timeout', 'redactAfter'] as const) {
    const problem = durationProblem((request as Partial<Record<typeof field, unknown>>)[field]);
    if (problem) errors[field] = [problem];
  }
  if (Object.keys(errors).length > 0) throw new InvalidVerificationRequestError(errors);
  const parsed = verificationRequestSchema.safeParse(request);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const field = issue.path.join('.') || '(request)';
    const message =
      issue.code === 'unrecognized_keys' ? `has unknown fields: ${issue.keys.join(', ')}` : issue.message;
    (errors[field] ??= []).push(message);
  }
  throw new InvalidVerificationRequestError(errors);
}
