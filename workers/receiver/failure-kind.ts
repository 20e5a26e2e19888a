/** What kind of failure, without its message (a Temporal error's text may name workflow IDs). */
export function failureKind(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'number') return `gRPC status ${code}`;
    if (typeof code === 'string') return code;
    if (typeof name === 'string') return name;
  }
  return 'unknown error';
}

/**
 * {@link failureKind} as log fields: `failure`, and `grpcStatus` when Temporal answered with one
 * (on the error or, for the client's `ServiceError`, on its cause).
 */
export function failureFields(error: unknown): { failure: string; grpcStatus?: number } {
  const grpcStatus =
    codeOf(error) ??
    codeOf(typeof error === 'object' && error !== null ? (error as { cause?: unknown }).cause : undefined);
  return { failure: failureKind(error), ...(grpcStatus !== undefined ? { grpcStatus } : {}) };
}

function codeOf(error: unknown): number | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : undefined;
}
