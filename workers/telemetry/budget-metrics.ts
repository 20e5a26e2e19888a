import { type MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { type CallBudget } from '../../api/http/call-budget';

/** How often the budget's gauges are sampled. */
const SAMPLE_EVERY_MS = 5_000;

/**
 * Gauges of a worker's call budget on the Temporal runtime's meter, sampled every 5 s:
 * `idv_api_budget_limit` (calls per second in force: lower for a while after 429s),
 * `idv_api_budget_waiting` (calls waiting for their turn) and `idv_api_budget_polled_sessions`
 * (sessions the polls are spread across). Returns the function that stops sampling.
 */
export function budgetMetrics(
  budget: CallBudget,
  meter: MetricMeter = Runtime.instance().metricMeter,
): () => void {
  const limit = meter.createGauge('idv_api_budget_limit', 'int', 'calls/s', 'Calls per second in force');
  const waiting = meter.createGauge('idv_api_budget_waiting', 'int', 'calls', 'Calls waiting for their turn');
  const polled = meter.createGauge(
    'idv_api_budget_polled_sessions',
    'int',
    'sessions',
    'Sessions the polls are spread across',
  );
  const sample = () => {
    const stats = budget.stats();
    limit.set(stats.currentLimit);
    waiting.set(stats.waiting);
    polled.set(stats.polledSessions);
  };
  sample();
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  sampler.unref();
  return () => clearInterval(sampler);
}
