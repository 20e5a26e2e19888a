import { createHash } from 'node:crypto';
import { type Pool } from 'pg';
import { type BlobStore, checkBlobName, type StoredBlob } from '../blob-store';
import { canonicalSessionId } from '../session-vault';
import { inTransaction } from './transaction';

/** Content is stored in rows of at most this many bytes, so neither side holds a whole attachment. */
const CHUNK_BYTES = 1024 * 1024;

/** A {@link BlobStore} in PostgreSQL: chunks written in one transaction, visible only once whole. */
export class PgBlobStore implements BlobStore {
  constructor(private readonly pool: Pool) {}

  async put(sessionId: string, name: string, content: AsyncIterable<Uint8Array>): Promise<StoredBlob> {
    const session = canonicalSessionId(sessionId);
    checkBlobName(name);
    return await inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM idv_blob_chunks WHERE session_id = $1 AND name = $2', [session, name]);
      await client.query('DELETE FROM idv_blobs WHERE session_id = $1 AND name = $2', [session, name]);
      const hash = createHash('sha256');
      let sizeBytes = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        const data = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        await client.query(
          'INSERT INTO idv_blob_chunks (session_id, name, seq, data) VALUES ($1, $2, $3, $4)',
          [session, name, seq, data],
        );
        seq += 1;
      };
      for await (const chunk of content) {
        hash.update(chunk);
        sizeBytes += chunk.length;
        pending.push(Buffer.from(chunk));
        pendingBytes += chunk.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
      const sha256 = hash.digest('hex');
      await client.query(
        'INSERT INTO idv_blobs (session_id, name, sha256, size_bytes, chunks) VALUES ($1, $2, $3, $4, $5)',
        [session, name, sha256, sizeBytes, seq],
      );
      return { uri: `idv-store:blobs/${session}/${name}`, sha256, sizeBytes };
    });
  }

  async read(sessionId: string, name: string): Promise<AsyncIterable<Buffer> | undefined> {
    const session = canonicalSessionId(sessionId);
    checkBlobName(name);
    const { rows } = await this.pool.query<{ chunks: number }>(
      'SELECT chunks FROM idv_blobs WHERE session_id = $1 AND name = $2',
      [session, name],
    );
    const blob = rows[0];
    if (!blob) return undefined;
    const pool = this.pool;
    return (async function* chunks() {
      for (let seq = 0; seq < blob.chunks; seq += 1) {
        const chunk = await pool.query<{ data: Buffer }>(
          'SELECT data FROM idv_blob_chunks WHERE session_id = $1 AND name = $2 AND seq = $3',
          [session, name, seq],
        );
        const row = chunk.rows[0];
        if (!row) throw new Error(`blob ${name} of session ${session} was deleted while being read`);
        yield row.data;
      }
    })();
  }

  async deleteSession(sessionId: string): Promise<number> {
    const session = canonicalSessionId(sessionId);
    return await inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM idv_blob_chunks WHERE session_id = $1', [session]);
      const { rowCount } = await client.query('DELETE FROM idv_blobs WHERE session_id = $1', [session]);
      return rowCount ?? 0;
    });
  }
}
