import { STATUS_CODES } from 'node:http';
import { type ProblemDetails } from './problem-details';

/** Stable codes of {@link ApiError} subclasses; activities use them as failure types. */
export const apiErrorCodes = {
  validation: 'ValidationError',
  unauthorized: 'UnauthorizedError',
  forbidden: 'ForbiddenError',
  notFound: 'NotFoundError',
  conflict: 'ConflictError',
  rateLimited: 'RateLimitedError',
  server: 'ServerError',
  unexpectedStatus: 'UnexpectedStatusError',
  network: 'NetworkError',
  timeout: 'TimeoutError',
  malformedResponse: 'MalformedResponseError',
  responseTooLarge: 'ResponseTooLargeError',
  overBudget: 'OverBudgetError',
} as const;

/** One of {@link apiErrorCodes}. */
export type ApiErrorCode = (typeof apiErrorCodes)[keyof typeof apiErrorCodes];

/** What every API error carries. */
export interface ApiErrorDetails {
  /** Operation name of the interface document, e.g. `GetSession`. */
  operation: string;
  /** HTTP status; absent when no answer arrived or the request was never sent. */
  status?: number;
  traceId?: string;
  problem?: ProblemDetails;
  /** Delay the service asked for (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
  /** The first bytes of a body that could not be understood (never a request body). */
  rawBody?: string;
  cause?: unknown;
}

/**
 * Base of every error of the API clients. Subclasses decide `retryable`; Temporal does the
 * retrying. Messages never contain API keys, results access keys or request bodies.
 */
export abstract class ApiError extends Error {
  abstract readonly code: ApiErrorCode;
  abstract readonly retryable: boolean;
  readonly operation: string;
  readonly status: number | undefined;
  readonly traceId: string | undefined;
  readonly problem: ProblemDetails | undefined;
  readonly retryAfterMs: number | undefined;
  readonly rawBody: string | undefined;

  constructor(summary: string, details: ApiErrorDetails) {
    super(describe(summary, details), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.operation = details.operation;
    this.status = details.status;
    this.traceId = details.traceId ?? details.problem?.traceId ?? undefined;
    this.problem = details.problem;
    this.retryAfterMs = details.retryAfterMs;
    this.rawBody = details.rawBody;
  }
}

/**
 * The message: operation, status, our summary, the standard phrase of the status
 * and the trace id. Never the service's free text (`detail`, validation messages): a service may
 * echo the person's input there, and messages reach logs and failures. It stays in `problem`.
 */
function describe(summary: string, details: ApiErrorDetails): string {
  const status = details.status === undefined ? '' : ` ${details.status}`;
  // Our own phrase for the status, not the service's title (it is the service's text too).
  const title =
    details.status !== undefined && details.status >= 300 ? STATUS_CODES[details.status] : undefined;
  const trace = details.traceId ?? details.problem?.traceId;
  return `${details.operation} failed${status}: ${summary}${title ? ` (${title})` : ''}${trace ? ` [traceId ${trace}]` : ''}`;
}

/**
 * Thrown when a request is invalid: answered 400 by the service (`errors` holds its messages
 * per property), or rejected by the client before sending (`sent` is false).
 */
export class ValidationError extends ApiError {
  readonly code = apiErrorCodes.validation;
  readonly retryable = false;
  readonly errors: Record<string, string[]>;
  readonly sent: boolean;

  constructor(details: ApiErrorDetails & { errors?: Record<string, string[]>; sent?: boolean }) {
    const errors = details.errors ?? details.problem?.errors ?? {};
    const sent = details.sent ?? true;
    // Our own checks' messages are safe to show; the service's may echo the input: field names only.
    const fields = Object.entries(errors).map(([field, messages]) =>
      sent ? field : `${field}: ${messages.join('; ')}`,
    );
    super(fields.length > 0 ? `invalid request: ${fields.join(', ')}` : 'invalid request', details);
    this.errors = errors;
    this.sent = sent;
  }
}

/** Thrown on 401: the API key is missing, unknown or revoked. */
export class UnauthorizedError extends ApiError {
  readonly code = apiErrorCodes.unauthorized;
  readonly retryable = false;
  constructor(details: ApiErrorDetails) {
    super('unauthorized: check the API key', details);
  }
}

/** Thrown on 403: the key may not act on this resource (another environment, wrong results access key). */
export class ForbiddenError extends ApiError {
  readonly code = apiErrorCodes.forbidden;
  readonly retryable = false;
  constructor(details: ApiErrorDetails) {
    super('forbidden: the credentials do not grant access to this resource', details);
  }
}

/** Thrown on 404: the resource does not exist (or no longer does). */
export class NotFoundError extends ApiError {
  readonly code = apiErrorCodes.notFound;
  readonly retryable = false;
  constructor(details: ApiErrorDetails) {
    super('not found', details);
  }
}

/** Thrown on 409: the resource is in a conflicting state; retried, as the state may settle. */
export class ConflictError extends ApiError {
  readonly code = apiErrorCodes.conflict;
  readonly retryable = true;
  constructor(details: ApiErrorDetails) {
    super('conflict', details);
  }
}

/** Thrown on 429; `retryAfterMs` holds the service's `Retry-After`. */
export class RateLimitedError extends ApiError {
  readonly code = apiErrorCodes.rateLimited;
  readonly retryable = true;
  constructor(details: ApiErrorDetails) {
    super('rate limited', details);
  }
}

/**
 * Thrown when a call that may only wait so long for its turn under the worker's call budget
 * (a poll) did not get one: nothing was sent. `retryAfterMs` is when to try again.
 */
export class OverBudgetError extends ApiError {
  readonly code = apiErrorCodes.overBudget;
  readonly retryable = true;
  constructor(details: ApiErrorDetails) {
    super('not sent: the call budget had no turn free in time', details);
  }
}

/** Thrown on 5xx, including a proxy's HTML error page. */
export class ServerError extends ApiError {
  readonly code = apiErrorCodes.server;
  readonly retryable = true;
  constructor(details: ApiErrorDetails) {
    super('server error', details);
  }
}

/**
 * Statuses the interface does not describe that a gateway answers for a request it did not
 * pass on, or not yet: a timeout (408), a connection meant for another host (421), a resource
 * locked for now (423), a request too early to replay (425).
 */
const PASSING_STATUSES: ReadonlySet<number> = new Set([408, 421, 423, 425]);

/**
 * Thrown on a status the interface does not describe: retried when passing (a redirect, see
 * {@link PASSING_STATUSES}), not otherwise.
 */
export class UnexpectedStatusError extends ApiError {
  readonly code = apiErrorCodes.unexpectedStatus;
  readonly retryable: boolean;
  constructor(details: ApiErrorDetails) {
    super('unexpected status', details);
    const status = details.status ?? 0;
    this.retryable = (status >= 300 && status < 400) || PASSING_STATUSES.has(status);
  }
}

/** Thrown when no answer arrived: connection refused or reset, DNS failure. */
export class NetworkError extends ApiError {
  readonly code = apiErrorCodes.network;
  readonly retryable = true;
  constructor(details: ApiErrorDetails & { reason: string }) {
    super(`network error: ${details.reason}`, details);
  }
}

/** Thrown when connecting, the headers or the body took longer than the configured timeout. */
export class TimeoutError extends ApiError {
  readonly code = apiErrorCodes.timeout;
  readonly retryable = true;
  constructor(details: ApiErrorDetails & { phase: 'connect' | 'headers' | 'body' | 'answer' }) {
    super(
      details.phase === 'answer'
        ? 'timed out before the whole answer came'
        : `timed out waiting for the ${details.phase}`,
      details,
    );
  }
}

/**
 * Thrown when a success answer cannot be understood: truncated or non-JSON body (retryable), or
 * JSON that does not match the interface (not retryable: the same answer would come again).
 */
export class MalformedResponseError extends ApiError {
  readonly code = apiErrorCodes.malformedResponse;
  readonly retryable: boolean;
  constructor(details: ApiErrorDetails & { reason: string; retryable: boolean }) {
    super(`malformed response: ${details.reason}`, details);
    this.retryable = details.retryable;
  }
}

/** Thrown when an answer's body is larger than the client reads; not retried (it would be again). */
export class ResponseTooLargeError extends ApiError {
  readonly code = apiErrorCodes.responseTooLarge;
  readonly retryable = false;
  readonly maxBytes: number;
  constructor(details: ApiErrorDetails & { maxBytes: number }) {
    super(`the answer is larger than ${details.maxBytes} bytes`, details);
    this.maxBytes = details.maxBytes;
  }
}
