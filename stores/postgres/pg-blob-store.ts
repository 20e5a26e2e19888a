import { createHash, randomUUID } from 'node:crypto';
import { type Pool } from 'pg';
import { type BlobStore, checkBlobName, SessionDataDeletedError, type StoredBlob } from '../blob-store';
import { canonicalSessionId } from '../session-vault';
import { inTransaction } from './transaction';

/** Content is stored in rows of at most this many bytes, so neither side holds a whole attachment. */
const CHUNK_BYTES = 1024 * 1024;

/** A {@link BlobStore} in PostgreSQL: chunks of 1 MiB, a blob visible only once whole. */
export class PgBlobStore implements BlobStore {
  constructor(private readonly pool: Pool) {}

  // Chunks go in one query each under a name of their own upload (no connection held while the
  // content arrives, however slowly); one short transaction then points the blob at the upload,
  // if it is whole, and drops the chunks of the one it replaces. A reader follows one upload:
  // never a mix of two. Chunks of an upload that died are the session's: its deletion takes them.
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
    const dropUpload = () =>
      this.pool
        .query('DELETE FROM idv_blob_chunks WHERE session_id = $1 AND name = $2', [session, upload])
        .catch(() => undefined);
    try {
      for await (const chunk of content) {
        hash.update(chunk);
        sizeBytes += chunk.length;
        pending.push(Buffer.from(chunk));
        pendingBytes += chunk.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
      const sha256 = hash.digest('hex');
      await inTransaction(this.pool, async (client) => {
        // One at a time with a deletion of the session: whichever comes second sees the other.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`idv-blobs:${session}`]);
        const deleted = await client.query('SELECT 1 FROM idv_blob_deletions WHERE session_id = $1', [
          session,
        ]);
        if (deleted.rowCount) throw new SessionDataDeletedError(session);
        const previous = await client.query<{ upload: string | null }>(
          'SELECT upload FROM idv_blobs WHERE session_id = $1 AND name = $2 FOR UPDATE',
          [session, name],
        );
        // The session's data deleted meanwhile (a redaction) takes the upload's chunks with it.
        const { rows } = await client.query<{ count: string }>(
          'SELECT count(*) AS count FROM idv_blob_chunks WHERE session_id = $1 AND name = $2',
          [session, upload],
        );
        if (Number(rows[0]?.count ?? 0) !== seq)
          throw new Error(`blob ${name} of session ${session} was deleted while it was being stored`);
        await client.query('DELETE FROM idv_blobs WHERE session_id = $1 AND name = $2', [session, name]);
        await client.query(
          'INSERT INTO idv_blobs (session_id, name, sha256, size_bytes, chunks, upload) VALUES ($1, $2, $3, $4, $5, $6)',
          [session, name, sha256, sizeBytes, seq, upload],
        );
        const replaced = previous.rows[0];
        if (replaced)
          await client.query('DELETE FROM idv_blob_chunks WHERE session_id = $1 AND name = $2', [
            session,
            replaced.upload ?? name,
          ]);
      });
      return { uri: `idv-store:blobs/${session}/${name}`, sha256, sizeBytes };
    } catch (error) {
      await dropUpload();
      throw error;
    }
  }

  async read(sessionId: string, name: string): Promise<AsyncIterable<Buffer> | undefined> {
    const session = canonicalSessionId(sessionId);
    checkBlobName(name);
    const { rows } = await this.pool.query<{ chunks: number; upload: string | null }>(
      'SELECT chunks, upload FROM idv_blobs WHERE session_id = $1 AND name = $2',
      [session, name],
    );
    const blob = rows[0];
    if (!blob) return undefined;
    const pool = this.pool;
    const chunkName = blob.upload ?? name;
    return (async function* chunks() {
      for (let seq = 0; seq < blob.chunks; seq += 1) {
        const chunk = await pool.query<{ data: Buffer }>(
          'SELECT data FROM idv_blob_chunks WHERE session_id = $1 AND name = $2 AND seq = $3',
          [session, chunkName, seq],
        );
        const row = chunk.rows[0];
        if (!row)
          throw new Error(`blob ${name} of session ${session} was replaced or deleted while being read`);
        yield row.data;
      }
    })();
  }

  async deleteSession(sessionId: string): Promise<number> {
    const session = canonicalSessionId(sessionId);
    return await inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`idv-blobs:${session}`]);
      await client.query('INSERT INTO idv_blob_deletions (session_id) VALUES ($1) ON CONFLICT DO NOTHING', [
        session,
      ]);
      await client.query('DELETE FROM idv_blob_chunks WHERE session_id = $1', [session]);
      const { rowCount } = await client.query('DELETE FROM idv_blobs WHERE session_id = $1', [session]);
      return rowCount ?? 0;
    });
  }
}
