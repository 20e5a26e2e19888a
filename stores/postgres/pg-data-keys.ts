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

  async destroy(keyId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE idv_data_keys SET wrapped = NULL, destroyed_at = coalesce(destroyed_at, now()) WHERE key_id = $1`,
      [checkKeyId(keyId)],
    );
    return rowCount === 1;
  }
}
