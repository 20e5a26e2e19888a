import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../workers/dev/free-port';
import { openLocalStore } from '../../stores/local/local-store';
import { eventually } from '../harness/eventually';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';
import { uniqueTaskQueue } from '../harness/worker';
import { startIdvProcess, workerProcessEnv } from '../harness/worker-process';

/** Sums the samples of `name` whose labels include every one of `labels` (Prometheus text format). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? ([\d.eE+-]+|NaN)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) total += Number(match[3]);
  }
  return total;
}

describe('the worker metrics endpoint', () => {
  const stack = useVerificationStack();
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-metrics-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the runtime metrics and the project counters, which move during a verification', async () => {
    const taskQueue = uniqueTaskQueue('metrics');
    const port = await freePort();
    const worker = await startIdvProcess(
      ['worker', '--metrics-port', String(port)],
      workerProcessEnv(stack().emulator, taskQueue, dataDir),
      'polling task queue',
    );
    const scrape = async () => await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    try {
      const before = await scrape();
      const idv = harnessIdvClient(stack().client, await openLocalStore(dataDir), taskQueue);
      const { handle } = await idv.startVerification(
        stack().request({ redactAfter: 'never', polling: { initialMs: 200, maxMs: 500 } }),
      );
      await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
      // Workflow metrics leave the workflow through a sink after its task completes; calls are
      // counted for a second before they reach the meter.
      const created = { operation: 'CreateDirectProviderSession', status: '200' };
      const after = await eventually(async () => {
        const text = await scrape();
        const moved = (name: string, labels: Record<string, string>) =>
          sample(text, name, labels) > sample(before, name, labels);
        return moved('idv_verifications_ended', { status: 'succeeded' }) &&
          moved('idv_api_calls', { operation: 'GetSession', status: '200' }) &&
          moved('idv_api_calls', created)
          ? text
          : undefined;
      }, 'idv_verifications_ended{status="succeeded"} and idv_api_calls to move');
      expect(sample(after, 'idv_api_calls', created)).toBe(sample(before, 'idv_api_calls', created) + 1);
      expect(sample(after, 'idv_api_calls', { operation: 'GetSession', status: '200' })).toBeGreaterThan(
        sample(before, 'idv_api_calls', { operation: 'GetSession', status: '200' }),
      );
      expect(sample(after, 'idv_session_polls_per_verification_count')).toBe(
        sample(before, 'idv_session_polls_per_verification_count') + 1,
      );
      expect(sample(after, 'idv_session_polls_per_verification_sum')).toBeGreaterThan(
        sample(before, 'idv_session_polls_per_verification_sum'),
      );
      // The worker's call budget: the default rate in force, nothing left waiting. The gauges are
      // sampled every 5 s, and a worker holds its calls (a part of 0) until it has joined the
      // workers of its task queue, so a sample from before may still stand.
      const budget = await eventually(async () => {
        const text = await scrape();
        return sample(text, 'idv_api_budget_limit') === 25 ? text : undefined;
      }, 'idv_api_budget_limit to show the rate in force');
      expect(sample(budget, 'idv_api_budget_waiting')).toBe(0);
      expect(budget).toContain('idv_api_budget_polled_sessions');
      // The Temporal runtime's own metrics share the endpoint.
      expect(sample(after, 'temporal_workflow_completed', { task_queue: taskQueue })).toBeGreaterThan(0);
      // Labels carry names and statuses only: no session id, no reference.
      expect(after).not.toMatch(/session_?id="/i);
      expect(after).not.toContain('reference=');
    } finally {
      expect(await worker.stop()).toBe(0);
    }
  }, 90_000);

  it('refuses a metrics port of 0 in one line', async () => {
    await expect(
      startIdvProcess(
        ['worker', '--metrics-port', '0'],
        workerProcessEnv(stack().emulator, 'unused', dataDir),
        'polling task queue',
      ),
    ).rejects.toThrow(/exited with 2: idv: --metrics-port must be a port number from 1 to 65535, got 0\n$/);
  });
});
