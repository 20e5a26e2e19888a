import { type Pool, type PoolClient } from 'pg';

/** Runs `work` in a transaction on one pooled connection: committed when it resolves, rolled back otherwise. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      // A connection that cannot roll back is not given back to the pool.
      broken = rollbackError as Error;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
