import {
  type ApiError,
  type ApiErrorDetails,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  UnexpectedStatusError,
  ValidationError,
} from './errors';
import { type ProblemDetails, problemDetailsSchema } from './problem-details';
import { parseRetryAfter } from './retry-after';

/** An error answer as read off the wire. */
export interface ErrorResponse {
  operation: string;
  status: number;
  contentType: string | undefined;
  retryAfter: string | string[] | undefined;
  bodyText: string;
}

const RAW_BODY_LIMIT = 2048;

/** The one place that turns an HTTP error answer into a typed {@link ApiError}. */
export function errorFromResponse(response: ErrorResponse): ApiError {
  const problem = parseProblem(response.contentType, response.bodyText);
  const details: ApiErrorDetails = {
    operation: response.operation,
    status: response.status,
    ...(problem ? { problem } : { rawBody: response.bodyText.slice(0, RAW_BODY_LIMIT) }),
    retryAfterMs: parseRetryAfter(response.retryAfter),
  };
  const { status } = response;
  if (status === 400 || status === 422) return new ValidationError(details);
  if (status === 401) return new UnauthorizedError(details);
  if (status === 403) return new ForbiddenError(details);
  // Gone: no longer there, as a 404 says (the interface lists neither).
  if (status === 404 || status === 410) return new NotFoundError(details);
  if (status === 409) return new ConflictError(details);
  if (status === 429) return new RateLimitedError(details);
  if (status >= 500) return new ServerError(details);
  return new UnexpectedStatusError(details);
}

function parseProblem(contentType: string | undefined, bodyText: string): ProblemDetails | undefined {
  if (!contentType || !/json/i.test(contentType) || bodyText.trim() === '') return undefined;
  try {
    const parsed = problemDetailsSchema.safeParse(JSON.parse(bodyText));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
