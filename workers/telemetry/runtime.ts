import { type LogLevel, Runtime } from '@temporalio/worker';
import { runtimeOptions } from '../logging';

/** Where the Prometheus endpoint of a process listens. */
export interface MetricsAddress {
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** Options of {@link installRuntime}. */
export interface RuntimeSettings {
  /** @default 'WARN' (worker lifecycle lines at INFO would bury a command's own output) */
  logLevel?: LogLevel;
  /** Serve Prometheus metrics (`/metrics`): the runtime's own and the project's `idv_*`. @default off */
  metrics?: MetricsAddress;
}

/**
 * Installs this process's Temporal runtime (one per process, before any worker or native
 * connection): its logger, and when asked its Prometheus endpoint, which also carries every
 * `idv_*` metric made through `Runtime.instance().metricMeter`, activities' and workflows' meters.
 */
export function installRuntime(settings: RuntimeSettings = {}): void {
  const base = runtimeOptions(settings.logLevel ?? 'WARN');
  const { metrics } = settings;
  Runtime.install({
    ...base,
    telemetryOptions: {
      ...base.telemetryOptions,
      ...(metrics
        ? { metrics: { prometheus: { bindAddress: `${metrics.host ?? '127.0.0.1'}:${metrics.port}` } } }
        : {}),
    },
  });
}
