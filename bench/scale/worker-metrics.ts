import { request } from 'undici';

/**
 * The attempts of the poll activity the worker at `port` has run, from its Prometheus endpoint
 * (`IDV_METRICS_PORT`): a poll that found no turn under the budget is an attempt without a call.
 */
export async function pollAttempts(port: number): Promise<number> {
  const response = await request(`http://127.0.0.1:${port}/metrics`);
  const text = await response.body.text();
  let total = 0;
  for (const line of text.split('\n'))
    if (
      line.startsWith('temporal_activity_execution_latency_count{') &&
      line.includes('activity_type="pollSession"')
    )
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}
