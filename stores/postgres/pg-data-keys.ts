import { type Pool } from 'pg';
import { checkKeyId, type DataKeyRecord, type DataKeyStore } from '../data-key-store';

/** A {@link DataKeyStore} in PostgreSQL: destroying a key clears its row to a tombstone. */
export class PgDataKeyStore implements DataKeyStore {
  constructor(private readonly pool: Pool) {}

  async create(keyId: string, wrapped: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'INSERT INTO idv_data_keys (key_id, wrapped) VALUES ($1, $2) ON CONFLICT (key_id) DO NOTHING',
      [checkKeyId(keyId), wrapped],
    );
    return rowCount === 1;
  }

  async get(keyId: string): Promise<DataKeyRecord | undefined> {
    const { rows } = await this.pool.query<{ wrapped: string | null; destroyed_at: Date | null }>(
      'SELECT wrapped, destroyed_at FROM idv_data_keys WHERE key_id = $1',
      [checkKeyId(keyId)],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.destroyed_at !== null || row.wrapped === null)
      return { state: 'destroyed', destroyedAt: (row.destroyed_at ?? new Date(0)).toISOString() };
    return { state: 'live', wrapped: row.wrapped };
  }

  async rewrap(keyId: string, from: string, to: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE idv_data_keys SET wrapped = $3 WHERE key_id = $1 AND wrapped = $2 AND destroyed_at IS NULL',
      [checkKeyId(keyId), from, to],
    );
    return rowCount === 1;
  }

  async wrappedElsewhere(
    kekId: string,
    options: { after?: string; limit: number },
  ): Promise<Array<{ keyId: string; wrapped: string }>> {
    const { rows } = await this.pool.query<{ key_id: string; wrapped: string }>(
      `SELECT key_id, wrapped FROM idv_data_keys
       WHERE wrapped IS NOT NULL AND left(wrapped, length($1) + 1) <> $1 || ':' AND key_id > $2
       ORDER BY key_id LIMIT $3`,
      [kekId, options.after ?? '', options.limit],
    );
    return rows.map((row) => ({ keyId: row.key_id, wrapped: row.wrapped }));
  }

  async destroy(keyId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE idv_data_keys SET wrapped = NULL, destroyed_at = coalesce(destroyed_at, now()) WHERE key_id = $1`,
      [checkKeyId(keyId)],
    );
    return rowCount === 1;
  }
}
