import { type MetricsAddress } from '../workers/telemetry/runtime';
import { durationProblem, parseDuration } from '../common/durations';
import { type CommandArgs, type OptionSpec, UsageError } from './command';

/** Parses a TCP port option (0 means "pick a free one"). */
export function parsePort(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new UsageError(`--${option} must be a port number from 0 to 65535, got '${value}'`);
  }
  return port;
}

/** The value of a single-valued string option. */
export function stringOption(values: CommandArgs['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** Every value of a repeatable string option. */
export function stringListOption(values: CommandArgs['values'], name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** Parses a non-negative number option. */
export function parseNonNegative(
  value: string | undefined,
  option: string,
  options: { max?: number; integer?: boolean } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  const valid =
    value.trim() !== '' &&
    Number.isFinite(number) &&
    number >= 0 &&
    (options.max === undefined || number <= options.max);
  if (!valid || (options.integer && !Number.isInteger(number))) {
    const range = options.max === undefined ? '>= 0' : `from 0 to ${options.max}`;
    throw new UsageError(
      `--${option} must be ${options.integer ? 'a whole number' : 'a number'} ${range}, got '${value}'`,
    );
  }
  return number;
}

/** `--port` and `--host` of the commands that serve HTTP. */
export const listenOptions: Record<'port' | 'host', OptionSpec> = {
  port: { type: 'string', valueName: 'N', description: 'port to listen on; 0 picks a free one (default 0)' },
  host: { type: 'string', valueName: 'HOST', description: 'address to bind (default 127.0.0.1)' },
};

/** `--metrics-port` and `--metrics-host` of the commands that run a worker or the receiver. */
export const metricsOptions: Record<'metrics-port' | 'metrics-host', OptionSpec> = {
  'metrics-port': {
    type: 'string',
    valueName: 'N',
    description: 'serve Prometheus metrics on this port at /metrics (default $IDV_METRICS_PORT, else off)',
  },
  'metrics-host': {
    type: 'string',
    valueName: 'HOST',
    description: 'address of the metrics endpoint (default $IDV_METRICS_HOST or 127.0.0.1)',
  },
};

/** The metrics endpoint asked for by `--metrics-port` / `IDV_METRICS_PORT`; undefined when off. */
export function metricsAddress(
  values: CommandArgs['values'],
  env: NodeJS.ProcessEnv,
): MetricsAddress | undefined {
  const fromOption = stringOption(values, 'metrics-port');
  const port = parsePort(
    fromOption ?? env.IDV_METRICS_PORT,
    fromOption ? 'metrics-port' : 'metrics-port (IDV_METRICS_PORT)',
  );
  if (port === undefined) return undefined;
  if (port === 0) throw new UsageError('--metrics-port must be a port number from 1 to 65535, got 0');
  const host = stringOption(values, 'metrics-host') ?? env.IDV_METRICS_HOST;
  return host ? { port, host } : { port };
}

/**
 * A duration option as written, once it reads as one: `30m`, `1h`, `7d`, `90s`, ISO 8601
 * (`PT30M`); a bare number is refused with a hint, a negative one too; `never` when `never`
 * allows it. Its bounds are the setting's, checked by the schema of what it sets.
 */
export function durationOption(
  values: CommandArgs['values'],
  name: string,
  allow: { never?: boolean } = {},
): string | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  if (allow.never && value.trim() === 'never') return 'never';
  const problem = durationProblem(value);
  if (problem) throw new UsageError(`--${name} ${problem}`);
  if (parseDuration(value) === undefined)
    throw new UsageError(
      `--${name} must be a duration such as 30m, 1h or 7d (or ISO 8601 such as PT30M)${allow.never ? ', or never' : ''}, got '${value}'`,
    );
  return value;
}

/** A duration option in milliseconds (checked as {@link durationOption} checks it). */
export function durationMsOption(values: CommandArgs['values'], name: string): number | undefined {
  const value = durationOption(values, name);
  return value === undefined ? undefined : parseDuration(value);
}
