import { createHash, randomUUID } from 'node:crypto';
import { type Pool } from 'pg';
import { type BlobStore, checkBlobName, type StoredBlob } from '../blob-store';
import { canonicalSessionId } from '../session-vault';
import { inTransaction } from './transaction';

/** Content is stored in rows of at most this many bytes, so neither side holds a whole attachment. */
const CHUNK_BYTES = 1024 * 1024;

/** A {@link BlobStore} in PostgreSQL: chunks of 1 MiB, a blob visible only once whole. */
export class PgBlobStore implements BlobStore {
  constructor(private readonly pool: Pool) {}

  // Chunks go in one query each under an upload name (no connection held while the content
  // arrives, however slowly); one short transaction then puts the blob in place whole. Chunks of
  // an upload that died are the session's too: its deletion removes them.
  async put(sessionId: string, name: string, content: AsyncIterable<Uint8Array>): Promise<StoredBlob> {
    const session = canonicalSessionId(sessionId);
    checkBlobName(name);
    const upload = `${name}/upload-${randomUUID()}`;
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
      await this.pool.query(
        'INSERT INTO idv_blob_chunks (session_id, name, seq, data) VALUES ($1, $2, $3, $4)',
        [session, upload, seq, data],
      );
      seq += 1;
    };
    try {
      for await (const chunk of content) {
        hash.update(chunk);
        sizeBytes += chunk.length;
        pending.push(Buffer.from(chunk));
        pendingBytes += chunk.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
    } catch (error) {
      await this.pool
        .query('DELETE FROM idv_blob_chunks WHERE session_id = $1 AND name = $2', [session, upload])
        .catch(() => undefined);
      throw error;
    }
    const sha256 = hash.digest('hex');
    await inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM idv_blob_chunks WHERE session_id = $1 AND name = $2', [session, name]);
      await client.query('DELETE FROM idv_blobs WHERE session_id = $1 AND name = $2', [session, name]);
      await client.query('UPDATE idv_blob_chunks SET name = $3 WHERE session_id = $1 AND name = $2', [
        session,
        upload,
        name,
      ]);
      await client.query(
        'INSERT INTO idv_blobs (session_id, name, sha256, size_bytes, chunks) VALUES ($1, $2, $3, $4, $5)',
        [session, name, sha256, sizeBytes, seq],
      );
    });
    return { uri: `idv-store:blobs/${session}/${name}`, sha256, sizeBytes };
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
