import { type MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { type ApiCall } from '../../api/http/http-core';

/**
 * How long calls are counted here before they go to the meter: each `add` crosses into the
 * SDK's core with its labels as JSON, about a tenth of a worker's CPU per poll at many open
 * verifications (bench:footprint), so one `add` per operation and status each second instead.
 */
const COUNTED_FOR_MS = 1_000;

/**
 * An `onCall` hook for the API clients (`createIdentityClient({ ..., onCall })`): counts
 * `idv_api_calls{operation, status}` on the Temporal runtime's meter (its Prometheus endpoint),
 * within a second of each call. Operation names and statuses only: no path, session id or body.
 */
export function apiCallMetrics(meter: MetricMeter = Runtime.instance().metricMeter): (call: ApiCall) => void {
  const calls = meter.createCounter('idv_api_calls', 'calls', 'Calls to the service by operation and status');
  const counted = new Map<string, { labels: { operation: string; status: string }; calls: number }>();
  let flush: NodeJS.Timeout | undefined;
  const flushed = () => {
    flush = undefined;
    for (const { labels, calls: made } of counted.values()) calls.add(made, labels);
    counted.clear();
  };
  return (call) => {
    const status = String(call.status);
    const key = `${call.operation} ${status}`;
    const same = counted.get(key);
    if (same) same.calls += 1;
    else counted.set(key, { labels: { operation: call.operation, status }, calls: 1 });
    // Unref'd: counts of the last second of a process that exits go with its endpoint.
    flush ??= setTimeout(flushed, COUNTED_FOR_MS).unref();
  };
}
