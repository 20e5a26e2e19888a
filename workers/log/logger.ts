import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { CENSORED, redactPaths, redactValue, scrub } from './redaction';

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
 * A JSON-lines logger (pino: `level`, `time`, `msg`, then fields) with the redaction rules of
 * `./redaction`: listed fields censored at any depth (fields, child bindings, interpolated
 * values), every string scrubbed, errors as type, scrubbed message and code (the scrubbed stack
 * only at debug and trace), and the written line scrubbed once more, which also covers a message
 * pino takes from an error.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  // An expected failure is one line; its stack (scrubbed) only when someone debugs.
  const redact = { stacks: options.level === 'debug' || options.level === 'trace' };
  const fieldsOf = (fields: object) => redactValue(fields, redact) as Record<string, unknown>;
  const passThrough = (value: unknown) => value;
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      redact: { paths: redactPaths, censor: CENSORED },
      // Errors are made plain by the formatters; pino's own error serializer would add the stack.
      serializers: { err: passThrough, error: passThrough },
      formatters: {
        level: (label) => ({ level: label }),
        bindings: fieldsOf,
        log: fieldsOf,
      },
      hooks: {
        logMethod(args, method) {
          // The first argument, when an object, stays for pino (an error's message becomes `msg`).
          const redacted = args.map((arg, index) =>
            index === 0 && typeof arg === 'object' ? arg : redactValue(arg, redact),
          );
          method.apply(this, redacted as Parameters<typeof method>);
        },
        streamWrite: scrub,
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
