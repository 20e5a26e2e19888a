import { ServiceError } from '@temporalio/client';

/**
 * gRPC's status codes that Temporal's answers carry and this project tells apart
 * (`@grpc/grpc-js` is not ours to import).
 */
export const grpcStatus = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  UNAUTHENTICATED: 16,
} as const;

/**
 * The gRPC status of a failed Temporal call: the error's own (a call on `workflowService`) or,
 * for the client's `ServiceError`, its cause's; undefined for any other failure.
 */
export function grpcStatusOf(error: unknown): number | undefined {
  const failed = error instanceof ServiceError ? error.cause : error;
  const code = (failed as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}
