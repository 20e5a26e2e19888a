// `npm run bench:footprint`: many open verifications on one `idv worker`, for each worker setting
// tried: its memory while idle and at peak, its CPU per poll, the start rate against the budget,
// and the drain once every user finishes.
// Sizes: BENCH_OPEN (default 10000), BENCH_OPEN_RATE (default 100 calls/s), BENCH_IDLE_SECONDS
// (default: the default `polling.attemptMs`, 600, so that every held attempt is handed back once
// in the idle window, as it is in each such span of a worker that stays up). Settings: BENCH_FOOTPRINT_VARIANTS, `;`-separated, each a list of the worker's
// environment (`IDV_WORKFLOW_CACHE=100,NODE_OPTIONS=--max-old-space-size=512`); `default` is the
// worker as shipped. Rewrites its section of docs/benchmarks.md.
import { cpus, totalmem } from 'node:os';
import { Runtime } from '@temporalio/worker';
import { DEFAULT_POLLING } from '../../verification/domain/polling';
import { DEFAULT_WORKFLOW_CACHE } from '../../workers/config';
import { runtimeOptions } from '../../workers/logging';
import { recordSection } from '../support/record';
import { runBench } from '../support/run-bench';
import { cell, round } from '../support/stats';
import { runOpenVerifications } from './open-verifications';
import { startScaleStack } from './stack';
import { freePort } from '../../workers/dev/free-port';
import { pollAttempts } from './worker-metrics';

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const OPEN = numberFrom('BENCH_OPEN', 10_000);
const RATE = numberFrom('BENCH_OPEN_RATE', 100);
const IDLE_SECONDS = numberFrom('BENCH_IDLE_SECONDS', DEFAULT_POLLING.attemptMs / 1000);
const VARIANTS = (process.env.BENCH_FOOTPRINT_VARIANTS ?? 'default').split(';').map((variant) => ({
  name: variant.trim(),
  env: Object.fromEntries(
    variant.trim() === 'default'
      ? []
      : variant.split(',').map((pair) => {
          const at = pair.indexOf('=');
          return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
        }),
  ),
}));

const log = (line: string) => process.stderr.write(`bench/footprint: ${line}\n`);

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('ERROR'));
  const stack = await startScaleStack();
  const rows: string[] = [];
  try {
    for (const [i, variant] of VARIANTS.entries()) {
      const taskQueue = `bench-footprint-${i}`;
      log(`${variant.name}: ${OPEN} open verifications, budget ${RATE} calls/s`);
      const emulator = await stack.emulator(20 + i);
      // Its Prometheus endpoint counts the poll activity's attempts: a poll that found no turn
      // under the budget is an attempt (an activity task) without a call.
      const metricsPort = await freePort();
      const worker = await stack.worker({
        taskQueue,
        emulator,
        apiRate: RATE,
        env: { ...variant.env, IDV_METRICS_PORT: String(metricsPort) },
      });
      const open = await runOpenVerifications({
        idv: stack.idv(taskQueue),
        client: stack.client,
        taskQueue,
        emulator,
        workerPid: worker.pid,
        pollAttempts: () => pollAttempts(metricsPort),
        count: OPEN,
        idleSeconds: IDLE_SECONDS,
      });
      await worker.stop();
      const startsPerSecond = open.count / open.startSeconds;
      rows.push(
        `| ${variant.name === 'default' ? `default (\`IDV_WORKFLOW_CACHE=${DEFAULT_WORKFLOW_CACHE}\`)` : `\`${variant.name}\``} | ${open.count} | ${cell(open.rssMiB)} | ${cell(open.peakRssMiB)} (${open.peakPhase}) | ${cell(open.idleCpuPercent)} | ${cell(open.idleCpuMsPerCall)} | ${cell(open.idlePollAttemptsPerCall)} | ${cell(open.idleCallsPerMinute)} | ${cell(startsPerSecond)} | ${cell((startsPerSecond / RATE) * 100)} | ${open.busiestSecond} | ${cell(open.drainSeconds)} | ${open.succeeded}/${open.sampled} |`,
      );
      log(rows.at(-1) ?? '');
    }
  } finally {
    await stack.stop();
  }
  const markdown = [
    '## npm run bench:footprint: open verifications on one worker',
    '',
    `Run: \`npm run bench:footprint\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30, 0)} GiB. For each worker setting, one \`idv worker\` (\`IDV_API_RATE=${RATE}\`, measured from /proc) and a fresh emulator: ${OPEN} verifications started 100 at a time whose users never finish on their own; 20 s after the last start, ${IDLE_SECONDS} s idle are measured (nearly every call then is a poll; the poll activity's tasks are counted by the worker's Prometheus endpoint, \`temporal_activity_execution_latency_count\`: a held attempt makes many calls, an attempt of one poll one or none); then every user finishes at once and the drain is the time until none runs. Outcomes are checked on a sample.`,
    '',
    '| worker setting | open | RSS MiB (idle) | peak RSS MiB (phase) | idle CPU % of one core | CPU ms per call (idle) | poll attempts per call (idle) | calls/min (idle) | starts/s | starts, % of budget | busiest second (calls) | drain s | sample succeeded |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  recordSection('footprint', markdown);
  process.stdout.write(`${markdown}\n`);
}

runBench('bench/footprint', main);
