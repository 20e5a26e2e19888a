/** Thrown when the test PostgreSQL server cannot be set up or does not come up. */
export class PostgresServerError extends Error {
  override readonly name = 'PostgresServerError';
}
