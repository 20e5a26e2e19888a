// `npm run bench:workers`: one call budget across 1, 2 and 4 `idv worker` processes on one task
// queue. The same log-normal population runs against each count, every worker told the same
// IDV_API_RATE (the limit for all of them together); the emulator counts the busiest second.
// Sizes: BENCH_WORKERS_POPULATION (default 300), BENCH_WORKERS_RATE (default 24 calls/s),
// BENCH_WORKERS_COUNTS (default 1,2,4).
// Rewrites its section of docs/benchmarks.md.
import { cpus, totalmem } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Runtime } from '@temporalio/worker';
import { SHARE_JOIN_MS, SHARE_REFRESH_MS } from '../../workers/budget-share';
import { runtimeOptions } from '../../workers/logging';
import { recordSection } from '../support/record';
import { runBench } from '../support/run-bench';
import { cell, round, summarise } from '../support/stats';
import { type Flow, foundDelays, logNormalTimes, runPopulation } from './population';
import { processUsage, startScaleStack } from './stack';

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POPULATION = numberFrom('BENCH_WORKERS_POPULATION', 300);
const RATE = numberFrom('BENCH_WORKERS_RATE', 24);
const COUNTS = (process.env.BENCH_WORKERS_COUNTS ?? '1,2,4').split(',').map(Number);
const MEDIAN_MS = 10_000;
const TAIL_MS = 60_000;

const log = (line: string) => process.stderr.write(`bench/workers: ${line}\n`);
const delays = (flows: readonly Flow[], kind: Flow['kind']) =>
  summarise(flows.filter((flow) => flow.kind === kind).map((flow) => flow.delayMs));

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('ERROR'));
  const stack = await startScaleStack();
  const serverPid = stack.server.pid as number;
  const rows: string[] = [];
  try {
    for (const count of COUNTS) {
      const taskQueue = `bench-workers-${count}`;
      log(`${count} worker(s): ${POPULATION} verifications, budget ${RATE} calls/s for all`);
      const emulator = await stack.emulator(11);
      const workers = [];
      for (let i = 0; i < count; i += 1)
        workers.push(await stack.worker({ taskQueue, emulator, apiRate: RATE }));
      // Every worker past its join wait: the figures are of the workers sharing, not of joining.
      await sleep(SHARE_JOIN_MS + 2 * SHARE_REFRESH_MS);
      const cpuBefore = workers.map((worker) => processUsage(worker.pid).cpuSeconds);
      const serverCpuBefore = processUsage(serverPid).cpuSeconds;
      const run = await runPopulation({
        name: `workers-${count}`,
        idv: stack.idv(taskQueue),
        emulator,
        returnUrl: stack.returnUrl,
        userMs: logNormalTimes(POPULATION, { seed: 3, medianMs: MEDIAN_MS, sigma: 0.84, maxMs: TAIL_MS }),
        redirectEvery: 2,
      });
      const cpu = workers.reduce(
        (sum, worker, i) => sum + processUsage(worker.pid).cpuSeconds - (cpuBefore[i] ?? 0),
        0,
      );
      const serverCpu = processUsage(serverPid).cpuSeconds - serverCpuBefore;
      for (const worker of workers) await worker.stop();
      const pollOnly = delays(run.flows, 'poll-only');
      const found = summarise(foundDelays(run));
      const redirect = delays(run.flows, 'redirect');
      const calls = Object.values(run.calls).reduce((sum, n) => sum + n, 0);
      rows.push(
        `| ${count} | ${run.flows.length} | ${run.flows.filter((flow) => !flow.ok).length} | ${cell(run.wallSeconds)} | ${run.busiestSecond} | ${RATE} | ${cell(calls / run.flows.length)} | ${cell(cpu)} | ${cell(serverCpu)} | ${cell(found.p50)} | ${cell(found.p99)} | ${cell(pollOnly.p50)} | ${cell(pollOnly.p99)} | ${cell(redirect.p50)} | ${cell(redirect.p99)} |`,
      );
    }
  } finally {
    await stack.stop();
  }
  const markdown = [
    '## npm run bench:workers: one call budget across 1, 2 and 4 workers',
    '',
    `Run: \`npm run bench:workers\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30, 0)} GiB. For each count, that many \`idv worker\` processes on one task queue, each with \`IDV_API_RATE=${RATE}\` (the service's limit for all of them together), run ${POPULATION} verifications started at once against a fresh emulator, once every worker has joined (${(SHARE_JOIN_MS + 2 * SHARE_REFRESH_MS) / 1000} s after the last one starts): users log-normal (median ${MEDIAN_MS / 1000} s, σ 0.84, none over ${TAIL_MS / 1000} s), every other one returning through the receiver. The busiest second is the emulator's count of requests in one wall-clock second; poll-only users' delays are the user finishing → the first GetSession that found it done (the emulator's clock: what the budget's polls decide), and → the workflow closed with the outcome (the server's close time), as are the returning users'.`,
    '',
    '| workers | verifications | failures | wall s | busiest second (calls) | budget (calls/s) | API calls/verification | worker CPU s (all) | Temporal server CPU s | poll-only found p50 ms | found p99 ms | poll-only to the close p50 ms | p99 ms | redirect to the close p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'The busiest second counts arrivals at the emulator: each process grants its calls over a sliding window of 1.1 s, so arrivals bunch only when a process or the emulator stalls on these 2 shared cores.',
  ].join('\n');
  recordSection('workers', markdown);
  process.stdout.write(`${markdown}\n`);
}

runBench('bench/workers', main);
