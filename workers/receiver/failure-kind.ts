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
