import { randomBytes } from 'node:crypto';

/** A problem details body (`application/problem+json`) with its status. */
export interface Problem {
  status: number;
  body: Record<string, unknown>;
}

const types: Record<number, [string, string]> = {
  400: ['https://tools.ietf.org/html/rfc7231#section-6.5.1', 'Bad Request'],
  401: ['https://tools.ietf.org/html/rfc7235#section-3.1', 'Unauthorized'],
  403: ['https://tools.ietf.org/html/rfc7231#section-6.5.3', 'Forbidden'],
  404: ['https://tools.ietf.org/html/rfc7231#section-6.5.4', 'Not Found'],
  405: ['https://tools.ietf.org/html/rfc7231#section-6.5.5', 'Method Not Allowed'],
  413: ['https://tools.ietf.org/html/rfc7231#section-6.5.11', 'Payload Too Large'],
  429: ['https://tools.ietf.org/html/rfc6585#section-4', 'Too Many Requests'],
  500: [
    'https://tools.ietf.org/html/rfc7231#section-6.6.1',
    'An error occurred while processing your request.',
  ],
  503: ['https://tools.ietf.org/html/rfc7231#section-6.6.4', 'Service Unavailable'],
};

/** A W3C trace-context id, as the service puts in `traceId`. */
export function newTraceId(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`;
}

/** Builds problem details for a status, with optional detail and per-property errors. */
export function problem(
  status: number,
  options: { detail?: string; errors?: Record<string, string[]>; instance?: string } = {},
): Problem {
  const [type, title] = types[status] ?? types[500] ?? ['about:blank', 'Error'];
  return {
    status,
    body: {
      type,
      title: status === 400 && options.errors ? 'One or more validation errors occurred.' : title,
      status,
      ...(options.detail ? { detail: options.detail } : {}),
      ...(options.instance ? { instance: options.instance } : {}),
      traceId: newTraceId(),
      ...(options.errors ? { errors: options.errors } : {}),
    },
  };
}

/** Thrown by handlers to answer with problem details. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(String(problem.body.title));
  }
}

/** Throws a 400 whose `errors` map names the bad properties. */
export function invalid(errors: Record<string, string[]>): never {
  throw new ProblemError(problem(400, { errors }));
}

/** Throws a 400 with a detail text (e.g. "not supported for your configuration"). */
export function badRequest(detail: string): never {
  throw new ProblemError(problem(400, { detail }));
}

/** Throws a 404 for an unknown id. */
export function notFound(detail: string): never {
  throw new ProblemError(problem(404, { detail }));
}

/** Throws a 403. */
export function forbidden(detail: string): never {
  throw new ProblemError(problem(403, { detail }));
}
