import { type MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { type ApiCall } from '../../api/http/http-core';

/**
 * An `onCall` hook for the API clients (`createIdentityClient({ ..., onCall })`): counts
 * `idv_api_calls{operation, status}` on the Temporal runtime's meter (its Prometheus endpoint).
 * Operation names and statuses only: no path, session id or body.
 */
export function apiCallMetrics(meter: MetricMeter = Runtime.instance().metricMeter): (call: ApiCall) => void {
  const calls = meter.createCounter('idv_api_calls', 'calls', 'Calls to the service by operation and status');
  return (call) => calls.add(1, { operation: call.operation, status: String(call.status) });
}
