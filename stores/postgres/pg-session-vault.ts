import { randomUUID } from 'node:crypto';
import { type Pool, type PoolClient } from 'pg';
import {
  type NextStep,
  canonicalProfileId,
  canonicalSessionId,
  type ClaimOutcome,
  type CreateAttempt,
  type Creation,
  type CreateAttemptEnding,
  claimantNamed,
  PURGED,
  secretMissing,
  type SessionClaim,
  type SessionVault,
  SWEPT,
} from '../session-vault';
import { inTransaction } from './transaction';

interface AttemptRow {
  attempt_id: string;
  workflow_id: string;
  profile_id: string;
  started_at_ms: string;
  ended_at_ms: string | null;
  settled: boolean;
  session_id: string | null;
}

const ATTEMPT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A {@link SessionVault} in PostgreSQL, shared by every worker. A verification's kept session is
 * a row of `idv_creation_slots` taken in one transaction with the claim, so workers racing for it
 * agree.
 */
export class PgSessionVault implements SessionVault {
  constructor(private readonly pool: Pool) {}

  async recordCreateAttempt(attempt: {
    workflowId: string;
    profileId: string;
    startedAtMs: number;
  }): Promise<string> {
    const attemptId = randomUUID();
    await inTransaction(this.pool, async (client) => {
      // The primary key numbers a workflow's attempts; the lock keeps two overlapping ones apart.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [attempt.workflowId]);
      await client.query(
        `INSERT INTO idv_create_attempts (workflow_id, idx, started_at_ms, profile_id, attempt_id)
         SELECT $1, coalesce(max(idx) + 1, 0), $2, $3, $4 FROM idv_create_attempts WHERE workflow_id = $1`,
        [attempt.workflowId, attempt.startedAtMs, canonicalProfileId(attempt.profileId), attemptId],
      );
    });
    return attemptId;
  }

  async endCreateAttempt(profileId: string, attemptId: string, ending: CreateAttemptEnding): Promise<void> {
    if (!ATTEMPT_ID.test(attemptId)) return;
    await this.pool.query(
      `UPDATE idv_create_attempts SET ended_at_ms = $3, settled = $4, session_id = $5
       WHERE profile_id = $1 AND attempt_id = $2`,
      [
        canonicalProfileId(profileId),
        attemptId,
        ending.endedAtMs,
        ending.settled,
        ending.sessionId === undefined ? null : canonicalSessionId(ending.sessionId),
      ],
    );
  }

  async createAttempts(profileId: string, workflowId?: string): Promise<CreateAttempt[]> {
    const { rows } = await this.pool.query<AttemptRow>(
      `SELECT attempt_id, workflow_id, profile_id, started_at_ms, ended_at_ms, settled, session_id
       FROM idv_create_attempts
       WHERE profile_id = $1 AND ($2::text IS NULL OR workflow_id = $2) AND attempt_id IS NOT NULL
       ORDER BY started_at_ms, idx`,
      [canonicalProfileId(profileId), workflowId ?? null],
    );
    return rows.map((row) => ({
      id: row.attempt_id,
      workflowId: row.workflow_id,
      profileId: row.profile_id,
      startedAtMs: Number(row.started_at_ms),
      ...(row.ended_at_ms === null ? {} : { endedAtMs: Number(row.ended_at_ms) }),
      settled: row.settled,
      ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    }));
  }

  async forgetCreateAttempts(profileId: string, attemptIds: readonly string[]): Promise<void> {
    const ids = attemptIds.filter((id) => ATTEMPT_ID.test(id));
    if (ids.length === 0) return;
    await this.pool.query('DELETE FROM idv_create_attempts WHERE profile_id = $1 AND attempt_id = ANY($2)', [
      canonicalProfileId(profileId),
      ids,
    ]);
  }

  async claim(sessionId: string, claim: SessionClaim): Promise<ClaimOutcome> {
    const session = canonicalSessionId(sessionId);
    return await inTransaction(this.pool, async (client) => {
      // A session the sweep took first stays the sweep's, and a destroyed one stays destroyed:
      // a tombstone is never overwritten.
      const { rowCount } = await client.query(
        `INSERT INTO idv_session_keys
           (session_id, workflow_id, results_access_key, data_key_id, profile_id, collection_method, next_step)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (session_id) DO UPDATE
         SET workflow_id = $2, results_access_key = $3, data_key_id = $4, profile_id = $5,
           collection_method = $6, next_step = $7, destroyed_at = NULL
         WHERE idv_session_keys.workflow_id <> '${SWEPT}' AND idv_session_keys.destroyed_at IS NULL`,
        [
          session,
          claim.workflowId,
          claim.resultsAccessKey,
          claim.dataKeyId ?? null,
          canonicalProfileId(claim.profileId),
          claim.collectionMethod,
          JSON.stringify(claim.nextStep),
        ],
      );
      if (rowCount === 0) return { swept: true };
      await client.query(
        'INSERT INTO idv_creation_slots (workflow_id, session_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [claim.workflowId, session],
      );
      const slot = await lockedSlot(client, claim.workflowId);
      if (slot.session_id === session && !slot.closed)
        return {
          kept: { sessionId: session, collectionMethod: claim.collectionMethod, nextStep: claim.nextStep },
        };
      if (slot.session_id !== session)
        await client.query('UPDATE idv_session_keys SET orphan = true WHERE session_id = $1', [session]);
      if (slot.closed || slot.session_id === null) return { closed: true };
      const { rows } = await client.query<{ collection_method: string | null; next_step: string | null }>(
        'SELECT collection_method, next_step FROM idv_session_keys WHERE session_id = $1',
        [slot.session_id],
      );
      const kept = rows[0];
      if (!kept?.collection_method || !kept.next_step) return { closed: true };
      return {
        kept: {
          sessionId: slot.session_id,
          collectionMethod: kept.collection_method,
          nextStep: JSON.parse(kept.next_step) as NextStep,
        },
      };
    });
  }

  async closeCreation(workflowId: string, keptSessionId?: string): Promise<string[]> {
    const kept = keptSessionId === undefined ? null : canonicalSessionId(keptSessionId);
    return await inTransaction(this.pool, async (client) => {
      await client.query(
        'INSERT INTO idv_creation_slots (workflow_id, closed) VALUES ($1, true) ON CONFLICT DO NOTHING',
        [workflowId],
      );
      const slot = await lockedSlot(client, workflowId);
      await client.query('UPDATE idv_creation_slots SET closed = true WHERE workflow_id = $1', [workflowId]);
      if (slot.session_id === null || slot.session_id === kept) return [];
      const { rowCount } = await client.query(
        'UPDATE idv_session_keys SET orphan = true WHERE session_id = $1 AND profile_id IS NOT NULL',
        [slot.session_id],
      );
      return rowCount === 1 ? [slot.session_id] : [];
    });
  }

  async creation(workflowId: string): Promise<Creation | undefined> {
    const { rows } = await this.pool.query<{ session_id: string | null; closed: boolean }>(
      'SELECT session_id, closed FROM idv_creation_slots WHERE workflow_id = $1',
      [workflowId],
    );
    const slot = rows[0];
    if (!slot) return undefined;
    return { closed: slot.closed, ...(slot.session_id === null ? {} : { keptSessionId: slot.session_id }) };
  }

  async forgetCreation(workflowId: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      // Tombstones only: a claim not destroyed yet (an orphan the sweep has still to end) keeps its
      // claimant.
      await client.query(
        `UPDATE idv_session_keys SET workflow_id = '${PURGED}' WHERE workflow_id = $1 AND destroyed_at IS NOT NULL`,
        [workflowId],
      );
      await client.query('DELETE FROM idv_creation_slots WHERE workflow_id = $1', [workflowId]);
    });
  }

  async takeOrphan(sessionId: string, profileId: string): Promise<boolean> {
    // A claim and its slot are one transaction: any row is a decided claim, never the sweep's.
    const { rowCount } = await this.pool.query(
      `INSERT INTO idv_session_keys (session_id, workflow_id, profile_id, orphan, destroyed_at)
       VALUES ($1, '${SWEPT}', $2, true, now()) ON CONFLICT (session_id) DO NOTHING`,
      [canonicalSessionId(sessionId), canonicalProfileId(profileId)],
    );
    return rowCount === 1;
  }

  async orphans(profileId: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ session_id: string }>(
      'SELECT session_id FROM idv_session_keys WHERE profile_id = $1 AND orphan ORDER BY session_id',
      [canonicalProfileId(profileId)],
    );
    return rows.map((row) => row.session_id);
  }

  async orphanSwept(sessionId: string, _profileId: string): Promise<void> {
    await this.pool.query('UPDATE idv_session_keys SET orphan = false WHERE session_id = $1', [
      canonicalSessionId(sessionId),
    ]);
  }

  async accountedFor(sessionIds: readonly string[]): Promise<Set<string>> {
    const ids = sessionIds.map(canonicalSessionId);
    if (ids.length === 0) return new Set();
    const { rows } = await this.pool.query<{ session_id: string }>(
      'SELECT session_id FROM idv_session_keys WHERE session_id = ANY($1::uuid[])',
      [ids],
    );
    return new Set(rows.map((row) => row.session_id));
  }

  async dataKeyOf(sessionId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ data_key_id: string | null }>(
      `SELECT k.data_key_id FROM idv_session_keys k
         LEFT JOIN idv_creation_slots s ON s.workflow_id = k.workflow_id
       WHERE k.session_id = $1 AND (s.session_id IS NULL OR s.session_id = k.session_id)`,
      [canonicalSessionId(sessionId)],
    );
    return rows[0]?.data_key_id ?? undefined;
  }

  async claimant(sessionId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ workflow_id: string }>(
      'SELECT workflow_id FROM idv_session_keys WHERE session_id = $1',
      [canonicalSessionId(sessionId)],
    );
    const workflowId = rows[0]?.workflow_id;
    return claimantNamed(workflowId);
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
      `INSERT INTO idv_session_keys (session_id, workflow_id, destroyed_at) VALUES ($1, $2, now())
       ON CONFLICT (session_id) DO UPDATE SET results_access_key = NULL, next_step = NULL,
         destroyed_at = coalesce(idv_session_keys.destroyed_at, now())`,
      [canonicalSessionId(sessionId), SWEPT],
    );
  }
}

/** The verification's slot, locked for the rest of the transaction (it exists: inserted before). */
async function lockedSlot(
  client: PoolClient,
  workflowId: string,
): Promise<{ session_id: string | null; closed: boolean }> {
  const { rows } = await client.query<{ session_id: string | null; closed: boolean }>(
    'SELECT session_id, closed FROM idv_creation_slots WHERE workflow_id = $1 FOR UPDATE',
    [workflowId],
  );
  return rows[0] as { session_id: string | null; closed: boolean };
}
