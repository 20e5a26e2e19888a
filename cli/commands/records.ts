import {
  type RecordFilter,
  recordStatuses,
  type VerificationRecord,
} from '../../stores/verification-records';
import { type Command, type CommandArgs, UsageError } from '../command';
import { commandConfig, commandStore } from '../connect';
import { recordRetentionBounds } from '../../workers/config';
import { purgeRecords } from '../../verification/client/records';
import { printJson, tableLines } from '../output';
import { durationMsOption, parseNonNegative, stringOption } from '../parse-values';

const redactionStates = ['done', 'due', 'kept'] as const;

/** A time option: an ISO 8601 date or time, or a duration meaning that long ago (`30d`). */
function timeOption(values: CommandArgs['values'], name: string, nowMs: number): string | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const ms = Date.parse(value);
    if (Number.isNaN(ms))
      throw new UsageError(
        `--${name} must be a date such as 2026-01-31 or a duration such as 30d, got '${value}'`,
      );
    return new Date(ms).toISOString();
  }
  const ago = durationMsOption(values, name) ?? 0;
  if (ago > MAX_AGO_MS)
    throw new UsageError(`--${name} must be at most ${MAX_AGO_MS / 86_400_000}d ago, got '${value}'`);
  return new Date(nowMs - ago).toISOString();
}

/** How far back a time option reaches at most: as far as records may be kept. */
const MAX_AGO_MS = recordRetentionBounds.maxMs;

function listFilter(values: CommandArgs['values'], nowMs: number): RecordFilter {
  const status = stringOption(values, 'status');
  if (status !== undefined && !(recordStatuses as readonly string[]).includes(status))
    throw new UsageError(`--status must be one of ${recordStatuses.join(', ')}, got '${status}'`);
  const redaction = stringOption(values, 'redaction');
  if (redaction !== undefined && !(redactionStates as readonly string[]).includes(redaction))
    throw new UsageError(`--redaction must be one of ${redactionStates.join(', ')}, got '${redaction}'`);
  const limit =
    parseNonNegative(stringOption(values, 'limit'), 'limit', { integer: true, max: 100_000 }) ?? 100;
  if (limit === 0) throw new UsageError("--limit must be at least 1, got '0'");
  const provider = stringOption(values, 'provider');
  const profile = stringOption(values, 'profile');
  const from = timeOption(values, 'since', nowMs);
  const until = timeOption(values, 'until', nowMs);
  const after = stringOption(values, 'after');
  return {
    ...(status ? { status: status as RecordFilter['status'] & string } : {}),
    ...(redaction ? { redaction: redaction as (typeof redactionStates)[number] } : {}),
    ...(provider ? { provider } : {}),
    ...(profile ? { verificationProfileId: profile } : {}),
    ...(from ? { startedFrom: from } : {}),
    ...(until ? { startedBefore: until } : {}),
    ...(after ? { after } : {}),
    limit,
  };
}

function recordRow(record: VerificationRecord): string[] {
  return [
    record.reference,
    `${record.status}${record.errorCode ? ` (${record.errorCode})` : ''}`,
    record.startedAt,
    record.endedAt ?? '-',
    record.redactedAt
      ? `erased ${record.redactedAt}`
      : record.redactionDueAt
        ? `due ${record.redactionDueAt}`
        : record.status === 'started'
          ? '-'
          : 'kept',
  ];
}

/** `idv records`: the verification records (kept past Temporal's retention), listed or purged. */
export const recordsCommand: Command = {
  name: 'records',
  takesArguments: true,
  summary:
    "List the verification records (kept past Temporal's retention; no personal data), or purge those erased long ago",
  usage:
    'records [--status S] [--provider P] [--profile ID] [--since T] [--until T] [--redaction done|due|kept] [--after REF] [--limit N] [--output table|json|jsonl] | records purge [--older-than D]',
  options: {
    status: { type: 'string', valueName: 'S', description: `${recordStatuses.join(', ')}` },
    provider: { type: 'string', valueName: 'P', description: 'provider id' },
    profile: { type: 'string', valueName: 'ID', description: 'verification profile id' },
    since: {
      type: 'string',
      valueName: 'T',
      description: 'started at or after: a date (2026-01-31) or a duration ago (30d)',
    },
    until: { type: 'string', valueName: 'T', description: 'started before: a date or a duration ago' },
    redaction: {
      type: 'string',
      valueName: 'R',
      description: 'done (erased), due (due and not erased yet) or kept (ended, kept without a due time)',
    },
    after: {
      type: 'string',
      valueName: 'REF',
      description: 'list after this reference (the last of the previous page)',
    },
    limit: { type: 'string', valueName: 'N', description: 'at most this many (default 100)' },
    'older-than': {
      type: 'string',
      valueName: 'D',
      description: 'purge: records erased more than this long ago (default $IDV_RECORD_RETENTION)',
    },
  },
  async run({ positionals, values }, io) {
    const [action, ...extra] = positionals;
    if (extra.length > 0 || (action !== undefined && action !== 'purge'))
      throw new UsageError(
        `unexpected argument '${extra[0] ?? action}': idv records lists, idv records purge purges`,
      );
    const config = commandConfig(io.env);
    const nowMs = Date.now();
    if (action === 'purge') {
      const listing = ['status', 'provider', 'profile', 'since', 'until', 'redaction', 'after', 'limit'].find(
        (name) => values[name] !== undefined,
      );
      if (listing) throw new UsageError(`idv records purge takes no --${listing}`);
      const olderThan = durationMsOption(values, 'older-than') ?? config.recordRetentionMs;
      if (olderThan === undefined)
        throw new UsageError(
          'idv records purge needs --older-than (such as 400d), or IDV_RECORD_RETENTION: how long the business keeps records',
        );
      if (olderThan < recordRetentionBounds.minMs || olderThan > recordRetentionBounds.maxMs)
        throw new UsageError(`--older-than must be a duration from ${recordRetentionBounds.range}`);
      const store = await commandStore(config);
      try {
        const erasedBefore = new Date(nowMs - olderThan);
        const purged = await purgeRecords(store, erasedBefore);
        if (values.json === true)
          printJson(io, { purged: purged.length, erasedBefore: erasedBefore.toISOString() });
        else
          io.stdout.write(
            `purged ${purged.length} records of verifications erased before ${erasedBefore.toISOString()}\n`,
          );
        return 0;
      } finally {
        await store.close();
      }
    }
    if (values['older-than'] !== undefined) throw new UsageError('--older-than is for idv records purge');
    const filter = listFilter(values, nowMs);
    const store = await commandStore(config);
    try {
      const found = await store.records.list(filter);
      if (values.json === true) printJson(io, found);
      else if (found.length === 0) io.stdout.write('no records found\n');
      else
        io.stdout.write(
          `${tableLines(['REFERENCE', 'STATUS', 'STARTED', 'ENDED', 'REDACTION'], found.map(recordRow)).join('\n')}\n`,
        );
      return 0;
    } finally {
      await store.close();
    }
  },
};
