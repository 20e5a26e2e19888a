import { type VerificationOutcome, type VerificationProgress } from '../verification/domain/verification';
import { type CommandIo } from './command';

/** Writes machine output: one JSON document on one line; with `--output jsonl` a list's items one per line. */
export function printJson(io: CommandIo, value: unknown): void {
  if (io.output === 'jsonl' && Array.isArray(value)) {
    for (const item of value) io.stdout.write(`${JSON.stringify(item)}\n`);
    return;
  }
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/** One line describing progress (no personal data: status, session, step method, calls). */
export function progressLine(progress: VerificationProgress): string {
  const calls = Object.values(progress.apiCalls).reduce((sum, n) => sum + n, 0);
  const step = progress.nextStep ? ` step ${progress.nextStep.method}` : '';
  const code = progress.errorCode ? ` (${progress.errorCode})` : '';
  if (progress.fromRecord)
    return `${progress.reference}: ${progress.status}${code} · session ${progress.sessionId ?? '-'} · from its record · updated ${progress.updatedAt}`;
  return `${progress.reference}: ${progress.status}${code}${step} · session ${progress.sessionId ?? '-'} · ${calls} API calls · updated ${progress.updatedAt}`;
}

/** Human summary of an outcome; identity data is summarised, never printed in full. */
export function outcomeLines(outcome: VerificationOutcome): string[] {
  const lines = [
    `outcome: ${outcome.status}${outcome.errorCode ? ` (${outcome.errorCode})` : ''}`,
    `session: ${outcome.sessionId ?? '-'}`,
  ];
  if (outcome.identityRedacted) lines.push('identity data: redacted');
  if (outcome.identity)
    lines.push(
      `identity data: ${Object.keys(outcome.identity)
        .filter((k) => outcome.identity?.[k])
        .join(', ')} (use --json to see it)`,
    );
  for (const a of outcome.attachments ?? [])
    lines.push(
      `attachment: ${a.type} ${a.contentType} ${a.sizeBytes} bytes sha256 ${a.sha256.slice(0, 12)}… (stored sealed; IdvClient.readAttachment reads it)`,
    );
  return lines;
}

/** A table: a header row, then the rows, columns padded to their widest cell (the last one not). */
export function tableLines(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ');
  return [line(headers), ...rows.map(line)];
}
