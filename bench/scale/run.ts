// bench/scale: a log-normal user population (ours under the default budget beside fixed 2-second
// polling) and many open verifications on one worker (several workers sharing a budget:
// bench/scale/workers.ts; instant users against a bare workflow: bench/scale/instant.ts).
// Rewrites its section of docs/benchmarks.md and the delay plot docs/bench-delays.svg.
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { Runtime } from '@temporalio/worker';
import { DEFAULT_API_RATE } from '../../api/http/call-budget';
import { runtimeOptions } from '../../workers/logging';
import { recordSection } from '../support/record';
import { cell, round, summarise } from '../support/stats';
import { runOpenVerifications } from './open-verifications';
import { writeDelayPlot } from './plot';
import { type Flow, logNormalTimes, runPopulation, type PopulationRun } from './population';
import { processUsage, startScaleStack } from './stack';

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POPULATION = numberFrom('BENCH_POPULATION', 1_000);
const BASELINE = numberFrom('BENCH_BASELINE', 200);
const MEDIAN_MS = numberFrom('BENCH_MEDIAN_MS', 90_000);
const TAIL_MS = numberFrom('BENCH_TAIL_MS', 20 * 60_000);
const OPEN = numberFrom('BENCH_OPEN', 10_000);
const OPEN_RATE = numberFrom('BENCH_OPEN_RATE', 100);
const IDLE_SECONDS = numberFrom('BENCH_IDLE_SECONDS', 60);
/** Spread of the log-normal: with median 90 s, about one user in a thousand takes over 20 minutes. */
const SIGMA = 0.84;

const log = (line: string) => process.stderr.write(`bench/scale: ${line}\n`);

function delayRow(variant: string, flows: readonly Flow[], kind: Flow['kind']): string {
  const mine = flows.filter((flow) => flow.kind === kind);
  const { p50, p99, max } = summarise(mine.map((flow) => flow.delayMs));
  const failures = mine.filter((flow) => !flow.ok).length;
  return `| ${variant} | ${kind} | ${mine.length} | ${failures} | ${cell(p50)} | ${cell(p99)} | ${cell(max)} |`;
}

const callsPer = (run: PopulationRun) =>
  Object.values(run.calls).reduce((sum, n) => sum + n, 0) / Math.max(1, run.flows.length);

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('ERROR'));
  const stack = await startScaleStack();
  try {
    const ours = await stack.emulator(7);
    const baseline = await stack.emulator(8);

    log(`population: ${POPULATION} verifications (ours) beside ${BASELINE} (fixed 2 s polling)`);
    if (POPULATION === 0) throw new Error('BENCH_POPULATION=0: nothing to measure');
    const oursWorker = await stack.worker({
      taskQueue: 'bench-scale-ours',
      emulator: ours,
      apiRate: DEFAULT_API_RATE,
    });
    const fixedWorker = await stack.worker({
      taskQueue: 'bench-scale-fixed',
      emulator: baseline,
      apiRate: 100_000,
    });
    let populationPeakRss = 0;
    const rssSampler = setInterval(
      () => (populationPeakRss = Math.max(populationPeakRss, processUsage(oursWorker.pid).rssMiB)),
      1_000,
    );
    const times = { seed: 1, medianMs: MEDIAN_MS, sigma: SIGMA, maxMs: TAIL_MS };
    const [oursRun, fixedRun] = await Promise.all([
      runPopulation({
        name: 'ours',
        idv: stack.idv('bench-scale-ours'),
        emulator: ours,
        returnUrl: stack.returnUrl,
        userMs: logNormalTimes(POPULATION, times),
        redirectEvery: 2,
      }),
      runPopulation({
        name: 'fixed',
        idv: stack.idv('bench-scale-fixed'),
        emulator: baseline,
        returnUrl: stack.returnUrl,
        userMs: logNormalTimes(BASELINE, { ...times, seed: 2 }),
        redirectEvery: 2,
        polling: { initialMs: 2_000, maxMs: 2_000 },
      }),
    ]);
    clearInterval(rssSampler);
    await fixedWorker.stop();
    await oursWorker.stop();
    writeDelayPlot(join(__dirname, '..', '..', 'docs', 'bench-delays.svg'), 'User finished → outcome known', [
      {
        name: `ours, poll-only (budget ${DEFAULT_API_RATE}/s)`,
        color: '#d62728',
        delaysMs: kindOf(oursRun, 'poll-only'),
      },
      {
        name: 'ours, redirect (return through the receiver)',
        color: '#1f77b4',
        delaysMs: kindOf(oursRun, 'redirect'),
      },
      {
        name: 'fixed 2 s polling, poll-only (no budget)',
        color: '#ff7f0e',
        delaysMs: kindOf(fixedRun, 'poll-only'),
      },
      {
        name: 'fixed 2 s polling, redirect (no budget)',
        color: '#2ca02c',
        delaysMs: kindOf(fixedRun, 'redirect'),
      },
    ]);

    log(`open: ${OPEN} verifications waiting on one worker (budget ${OPEN_RATE}/s)`);
    const openWorker = await stack.worker({
      taskQueue: 'bench-scale-open',
      emulator: ours,
      apiRate: OPEN_RATE,
    });
    const open = await runOpenVerifications({
      idv: stack.idv('bench-scale-open'),
      client: stack.client,
      taskQueue: 'bench-scale-open',
      emulator: ours,
      workerPid: openWorker.pid,
      count: OPEN,
      idleSeconds: IDLE_SECONDS,
    });
    await openWorker.stop();

    const markdown = [
      '## bench/scale: a user population, 10,000 open verifications',
      '',
      `Run: \`npm run bench:scale\` (or \`npm run bench\` for every section), ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30, 0)} GiB. One dev server (SQLite in memory); each emulator and each worker (\`idv worker\`, payloads encrypted, measured from /proc) in its own process; the client, the receiver and the load in the bench's process. Polling is our default (1 s growing by half to 10 s) unless said; the budget is the worker's \`IDV_API_RATE\`.`,
      '',
      `### Delays under a log-normal population (${POPULATION} verifications at once)`,
      '',
      `User times log-normal, median ${MEDIAN_MS / 1000} s, σ ${SIGMA}, none over ${TAIL_MS / 60_000} min (seeded); every other user comes back through the receiver's \`/return\` (redirect), the rest are found by polling. Ours: one worker at the default budget of ${DEFAULT_API_RATE} calls/s. Beside it, at the same time on its own emulator and worker: ${BASELINE} verifications of the same population polled every 2 s with no budget. Delay = the bench completed the session at the service (the user finished) → the workflow closed with the outcome, results fetched (the server's close time; the receiver has its own connection). Plot: [bench-delays.svg](bench-delays.svg).`,
      '',
      '| variant | flow | verifications | failures | delay p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|---|---|',
      delayRow(`ours (budget ${DEFAULT_API_RATE}/s)`, oursRun.flows, 'poll-only'),
      delayRow(`ours (budget ${DEFAULT_API_RATE}/s)`, oursRun.flows, 'redirect'),
      delayRow('fixed 2 s polling (no budget)', fixedRun.flows, 'poll-only'),
      delayRow('fixed 2 s polling (no budget)', fixedRun.flows, 'redirect'),
      '',
      '| variant | wall s | API calls/verification | busiest second (calls) | budget (calls/s) | worker peak RSS MiB |',
      '|---|---|---|---|---|---|',
      `| ours | ${cell(oursRun.wallSeconds)} | ${cell(callsPer(oursRun))} | ${oursRun.busiestSecond} | ${DEFAULT_API_RATE} | ${cell(populationPeakRss)} |`,
      `| fixed 2 s polling | ${cell(fixedRun.wallSeconds)} | ${cell(callsPer(fixedRun))} | ${fixedRun.busiestSecond} | none | – |`,
      '',
      `### ${open.count} open verifications on one worker (budget ${OPEN_RATE} calls/s)`,
      '',
      `Started ${open.count} verifications whose users never finish on their own; after the last start and 20 s to settle, ${cell(open.idleSeconds)} s idle were measured; then every user finished at once (the bench completed the sessions) and the time until no workflow was running is the drain. Outcomes checked on a sample of ${open.sampled}: ${open.succeeded} succeeded; starts that failed three times: ${open.startFailures}.`,
      '',
      '| open verifications | start s | worker RSS MiB (idle) | peak RSS MiB | idle CPU % of one core | API calls/min while idle | busiest second (calls) | budget (calls/s) | drain s |',
      '|---|---|---|---|---|---|---|---|---|',
      `| ${open.count} | ${cell(open.startSeconds)} | ${cell(open.rssMiB)} | ${cell(open.peakRssMiB)} | ${cell(open.idleCpuPercent)} | ${cell(open.idleCallsPerMinute)} | ${open.busiestSecond} | ${OPEN_RATE} | ${cell(open.drainSeconds)} |`,
      '',
      `Idle calls are bounded by the budget, not by the number of open verifications: each waiting session is polled about every ${cell(open.count / ((OPEN_RATE / 1.1) * 0.8))} s (${open.count} sessions over 80 % of the ${OPEN_RATE} calls per 1.1 s window).`,
    ].join('\n');
    recordSection('scale', markdown);
    process.stdout.write(`${markdown}\n`);
  } catch (error) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw error;
  } finally {
    await stack.stop();
  }
}

function kindOf(run: PopulationRun, kind: Flow['kind']): number[] {
  return run.flows.filter((flow) => flow.kind === kind).map((flow) => flow.delayMs);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench/scale failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
