import { DefaultLogger, type LogEntry, type LogLevel, type RuntimeOptions } from '@temporalio/worker';

// The deadline and redirect paths cancel the polling activity without waiting for it to
// acknowledge (waiting would delay the reaction by up to one poll interval); core then warns
// that the cancelled activity's completion found no workflow. Expected, so not shown.
const benign = ['Activity not found on completion'];

/** A Temporal runtime logger at `level` that drops the benign lines above (and `extra`). */
export function runtimeLogger(level: LogLevel, extra: readonly string[] = []): DefaultLogger {
  const dropped = [...benign, ...extra];
  return new DefaultLogger(level, (entry: LogEntry) => {
    if (dropped.some((text) => entry.message.startsWith(text))) return;
    const meta = entry.meta && Object.keys(entry.meta).length > 0 ? entry.meta : '';
    console.error(
      `${new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString()} [${entry.level}] ${entry.message}`,
      meta,
    );
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
