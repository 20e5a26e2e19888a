import { type Pool } from 'pg';
import {
  canonicalSessionId,
  type CreateAttempt,
  type CreateAttemptEnding,
  secretMissing,
  type SessionClaim,
  type SessionVault,
} from '../session-vault';
import { inTransaction } from './transaction';

interface AttemptRow {
  started_at_ms: string;
  ended_at_ms: string | null;
  settled: boolean;
  session_id: string | null;
}

/** A {@link SessionVault} in PostgreSQL, shared by every worker. */
export class PgSessionVault implements SessionVault {
  constructor(private readonly pool: Pool) {}

  async recordCreateAttempt(workflowId: string, startedAtMs: number): Promise<string> {
    return await inTransaction(this.pool, async (client) => {
      // Attempts of one workflow are numbered in order, even when two overlap.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [workflowId]);
      const { rows } = await client.query<{ idx: number }>(
        `INSERT INTO idv_create_attempts (workflow_id, idx, started_at_ms)
         SELECT $1, coalesce(max(idx) + 1, 0), $2 FROM idv_create_attempts WHERE workflow_id = $1
         RETURNING idx`,
        [workflowId, startedAtMs],
      );
      return String((rows[0] as { idx: number }).idx);
    });
  }

  async endCreateAttempt(workflowId: string, attemptId: string, ending: CreateAttemptEnding): Promise<void> {
    const index = Number(attemptId);
    if (!Number.isInteger(index)) return;
    await this.pool.query(
      `UPDATE idv_create_attempts SET ended_at_ms = $3, settled = $4, session_id = $5
       WHERE workflow_id = $1 AND idx = $2`,
      [
        workflowId,
        index,
        ending.endedAtMs,
        ending.settled,
        ending.sessionId === undefined ? null : canonicalSessionId(ending.sessionId),
      ],
    );
  }

  async createAttempts(workflowId: string): Promise<CreateAttempt[]> {
    const { rows } = await this.pool.query<AttemptRow>(
      `SELECT started_at_ms, ended_at_ms, settled, session_id FROM idv_create_attempts
       WHERE workflow_id = $1 ORDER BY started_at_ms, idx`,
      [workflowId],
    );
    return rows.map((row) => ({
      startedAtMs: Number(row.started_at_ms),
      ...(row.ended_at_ms === null ? {} : { endedAtMs: Number(row.ended_at_ms) }),
      settled: row.settled,
      ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    }));
  }

  async forgetCreateAttempts(workflowId: string): Promise<void> {
    await this.pool.query('DELETE FROM idv_create_attempts WHERE workflow_id = $1', [workflowId]);
  }

  async claim(sessionId: string, claim: SessionClaim): Promise<void> {
    await this.pool.query(
      `INSERT INTO idv_session_keys (session_id, workflow_id, results_access_key, data_key_id)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (session_id) DO UPDATE
       SET workflow_id = $2, results_access_key = $3, data_key_id = $4, destroyed_at = NULL`,
      [canonicalSessionId(sessionId), claim.workflowId, claim.resultsAccessKey, claim.dataKeyId ?? null],
    );
  }

  async dataKeyOf(sessionId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ data_key_id: string | null }>(
      'SELECT data_key_id FROM idv_session_keys WHERE session_id = $1',
      [canonicalSessionId(sessionId)],
    );
    return rows[0]?.data_key_id ?? undefined;
  }

  async claimant(sessionId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ workflow_id: string }>(
      'SELECT workflow_id FROM idv_session_keys WHERE session_id = $1',
      [canonicalSessionId(sessionId)],
    );
    return rows[0]?.workflow_id;
  }

  async accessKey(sessionId: string): Promise<string> {
    const { rows } = await this.pool.query<{ results_access_key: string | null }>(
      'SELECT results_access_key FROM idv_session_keys WHERE session_id = $1',
      [canonicalSessionId(sessionId)],
    );
    const key = rows[0]?.results_access_key;
    if (!key) throw secretMissing(sessionId);
    return key;
  }

  async destroy(sessionId: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO idv_session_keys (session_id, workflow_id, destroyed_at) VALUES ($1, 'unknown', now())
       ON CONFLICT (session_id) DO UPDATE SET results_access_key = NULL,
         destroyed_at = coalesce(idv_session_keys.destroyed_at, now())`,
      [canonicalSessionId(sessionId)],
    );
  }
}
