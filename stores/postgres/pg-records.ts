import { type Pool } from 'pg';
import {
  checkReference,
  type RecordedEnding,
  type RecordFilter,
  type RecordStatus,
  supersededKeys,
  type VerificationRecord,
  type VerificationRecords,
} from '../verification-records';

interface Row {
  reference: string;
  profile_id: string;
  provider: string;
  data_key_id: string;
  session_id: string | null;
  status: RecordStatus;
  error_code: string | null;
  started_at: Date;
  ended_at: Date | null;
  redaction_due_at: Date | null;
  redacted_at: Date | null;
  superseded_key_ids: string[] | null;
}

function fromRow(row: Row): VerificationRecord {
  return {
    reference: row.reference,
    verificationProfileId: row.profile_id,
    provider: row.provider,
    dataKeyId: row.data_key_id,
    ...(row.session_id ? { sessionId: row.session_id } : {}),
    status: row.status,
    ...(row.error_code ? { errorCode: row.error_code } : {}),
    startedAt: row.started_at.toISOString(),
    ...(row.ended_at ? { endedAt: row.ended_at.toISOString() } : {}),
    ...(row.redaction_due_at ? { redactionDueAt: row.redaction_due_at.toISOString() } : {}),
    ...(row.redacted_at ? { redactedAt: row.redacted_at.toISOString() } : {}),
    ...supersededKeys(row.superseded_key_ids ?? [], row.data_key_id),
  };
}

/** References a purge reads at a time. */
const PURGE_BATCH = 500;

/** {@link VerificationRecords} in PostgreSQL: one row per reference in `idv_records`. */
export class PgVerificationRecords implements VerificationRecords {
  constructor(private readonly pool: Pool) {}

  async reserve(record: VerificationRecord): Promise<{ created: boolean; record: VerificationRecord }> {
    const { rows } = await this.pool.query<Row>(
      `INSERT INTO idv_records (reference, profile_id, provider, data_key_id, status, started_at)
       VALUES ($1, $2, $3, $4, 'started', $5) ON CONFLICT (reference) DO NOTHING RETURNING *`,
      [
        checkReference(record.reference),
        record.verificationProfileId,
        record.provider,
        record.dataKeyId,
        record.startedAt,
      ],
    );
    if (rows[0]) return { created: true, record: fromRow(rows[0]) };
    return { created: false, record: (await this.get(record.reference)) ?? record };
  }

  async get(reference: string): Promise<VerificationRecord | undefined> {
    const { rows } = await this.pool.query<Row>('SELECT * FROM idv_records WHERE reference = $1', [
      checkReference(reference),
    ]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async restarted(
    reference: string,
    start: Pick<VerificationRecord, 'dataKeyId' | 'startedAt'>,
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE idv_records SET data_key_id = $2, started_at = $3,
         superseded_key_ids = array_append(coalesce(superseded_key_ids, '{}'), data_key_id)
       WHERE reference = $1 AND ended_at IS NULL AND redacted_at IS NULL`,
      [checkReference(reference), start.dataKeyId, start.startedAt],
    );
    return (rowCount ?? 0) > 0;
  }

  /** `endingBelongs`, as the upsert's condition: the row is read and written in one statement. */
  async ended(reference: string, ending: RecordedEnding): Promise<void> {
    await this.pool.query(
      `INSERT INTO idv_records AS r (reference, profile_id, provider, data_key_id, status, error_code,
         session_id, started_at, ended_at, redaction_due_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (reference) DO UPDATE SET status = $5, error_code = $6, session_id = $7,
         ended_at = $9, redaction_due_at = $10, data_key_id = $4,
         superseded_key_ids = array_append(coalesce(r.superseded_key_ids, '{}'), r.data_key_id)
       WHERE r.ended_at IS NULL AND (r.data_key_id = $4 OR $4 = ANY(coalesce(r.superseded_key_ids, '{}'))
         OR $9 >= r.started_at)`,
      [
        checkReference(reference),
        ending.verificationProfileId,
        ending.provider,
        ending.dataKeyId,
        ending.status,
        ending.errorCode ?? null,
        ending.sessionId ?? null,
        ending.startedAt,
        ending.endedAt,
        ending.redactionDueAt ?? null,
      ],
    );
  }

  /** `erasureBelongs`, as the update's condition. */
  async redacted(reference: string, redactedAt: string, dataKeyId?: string): Promise<void> {
    await this.pool.query(
      `UPDATE idv_records SET redacted_at = $2 WHERE reference = $1 AND redacted_at IS NULL
         AND ($3::text IS NULL OR data_key_id = $3 OR $3 = ANY(coalesce(superseded_key_ids, '{}')))`,
      [checkReference(reference), redactedAt, dataKeyId ?? null],
    );
  }

  async list(filter: RecordFilter): Promise<VerificationRecord[]> {
    const clauses: string[] = [];
    const values: unknown[] = [];
    const where = (clause: (placeholder: string) => string, value: unknown) => {
      values.push(value);
      clauses.push(clause(`$${values.length}`));
    };
    if (filter.status) where((p) => `status = ${p}`, filter.status);
    if (filter.verificationProfileId) where((p) => `profile_id = ${p}`, filter.verificationProfileId);
    if (filter.provider) where((p) => `provider = ${p}`, filter.provider);
    if (filter.startedFrom) where((p) => `started_at >= ${p}`, filter.startedFrom);
    if (filter.startedBefore) where((p) => `started_at < ${p}`, filter.startedBefore);
    if (filter.after) where((p) => `reference > ${p}`, filter.after);
    if (filter.redaction === 'done') clauses.push('redacted_at IS NOT NULL');
    if (filter.redaction === 'due')
      clauses.push('redacted_at IS NULL AND redaction_due_at IS NOT NULL AND redaction_due_at <= now()');
    if (filter.redaction === 'kept')
      clauses.push(`redacted_at IS NULL AND redaction_due_at IS NULL AND status <> 'started'`);
    values.push(filter.limit);
    const { rows } = await this.pool.query<Row>(
      `SELECT * FROM idv_records ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
       ORDER BY reference LIMIT $${values.length}`,
      values,
    );
    return rows.map(fromRow);
  }

  async purge(
    erasedBefore: string,
    beforeRemoving?: (reference: string) => Promise<void>,
  ): Promise<string[]> {
    const purged: string[] = [];
    for (let after = ''; ;) {
      const { rows } = await this.pool.query<{ reference: string }>(
        'SELECT reference FROM idv_records WHERE redacted_at < $1 AND reference > $2 ORDER BY reference LIMIT $3',
        [erasedBefore, after, PURGE_BATCH],
      );
      for (const { reference } of rows) {
        await beforeRemoving?.(reference);
        const { rowCount } = await this.pool.query(
          'DELETE FROM idv_records WHERE reference = $1 AND redacted_at < $2',
          [reference, erasedBefore],
        );
        if (rowCount) purged.push(reference);
      }
      const last = rows.at(-1);
      if (!last || rows.length < PURGE_BATCH) return purged;
      after = last.reference;
    }
  }
}
