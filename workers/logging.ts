import { DefaultLogger, type LogEntry, type LogLevel, type RuntimeOptions } from '@temporalio/worker';
import { type Logger } from 'pino';
import { processLogger } from './log/logger';

// The deadline and redirect paths cancel the polling activity without waiting for it to
// acknowledge (waiting would delay the reaction by up to one poll interval); core then warns
// that the cancelled activity's completion found no workflow. Expected, so not shown.
const benign = ['Activity not found on completion'];

const pinoLevels = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * A Temporal runtime logger at `level` that drops the benign lines above (and `extra`) and writes
 * the rest as JSON lines through `logger` (default: the process's, with the redaction rules of
 * `workers/log/redaction.ts`): the SDK's lines, core's forwarded ones, and workflows' and
 * activities' `log` calls with their meta (workflow id, type, run id, …) as fields.
 */
export function runtimeLogger(
  level: LogLevel,
  extra: readonly string[] = [],
  logger: Logger = processLogger(),
): DefaultLogger {
  const dropped = [...benign, ...extra];
  // The runtime filters at `level`; the JSON logger must not filter it again.
  const runtime = logger.child({ source: 'temporal' }, { level: pinoLevels[level] });
  return new DefaultLogger(level, (entry: LogEntry) => {
    if (dropped.some((text) => entry.message.startsWith(text))) return;
    runtime[pinoLevels[entry.level]]({ ...entry.meta }, entry.message);
  });
}

/**
 * Runtime options that send the native core's log lines through {@link runtimeLogger} too, so the
 * same filter applies to them (they would go to the console directly otherwise).
 */
export function runtimeOptions(level: LogLevel, extra: readonly string[] = []): RuntimeOptions {
  return {
    logger: runtimeLogger(level, extra),
    telemetryOptions: { logging: { filter: { core: level, other: 'ERROR' }, forward: {} } },
  };
}
