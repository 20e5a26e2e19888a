import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { CENSORED, redactPaths, scrub } from './redaction';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** @default 'info' */
  level?: Level;
  /** Where the JSON lines go. @default stderr */
  destination?: DestinationStream;
}

/** The log levels `IDV_LOG_LEVEL` accepts. */
export const logLevels: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * A JSON-lines logger (pino: `level`, `time`, `msg`, then fields) with the redaction rules
 * applied: listed fields censored, every string field and the message scrubbed, an error logged
 * as its type and scrubbed message only (no stack: the process's own frames are no use to an
 * operator, and causes may quote a service's answer).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  // An expected failure is one line; its stack (scrubbed) only when someone debugs.
  const stacks = options.level === 'debug' || options.level === 'trace';
  const errorFields = (error: unknown) => errorFieldsOf(error, stacks);
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      redact: { paths: redactPaths, censor: CENSORED },
      serializers: { err: errorFields, error: errorFields },
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => scrubFields(fields, errorFields),
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrub(arg) : arg));
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

let shared: Logger | undefined;

/** The process's logger, at `IDV_LOG_LEVEL` (default info); made on first use. */
export function processLogger(): Logger {
  shared ??= createLogger({ level: logLevelOf(process.env.IDV_LOG_LEVEL) });
  return shared;
}

function logLevelOf(value: string | undefined): Level {
  const level = value?.toLowerCase() as Level | undefined;
  return level && logLevels.includes(level) ? level : 'info';
}

function errorFieldsOf(error: unknown, stacks: boolean): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: scrub(String(error)) };
  const code = 'code' in error ? { code: String(error.code) } : {};
  const stack = stacks && error.stack ? { stack: scrub(error.stack) } : {};
  return { type: error.name, message: scrub(error.message), ...code, ...stack };
}

function scrubFields(
  fields: Record<string, unknown>,
  errorFields: (error: unknown) => Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') result[key] = scrub(value);
    // Errors under any other key than err/error (whose serializers run after this).
    else if (value instanceof Error && key !== 'err' && key !== 'error') result[key] = errorFields(value);
    else result[key] = value;
  }
  return result;
}
