// `npm run bench:polls`: where polls are placed. One log-normal population (as bench/scale: median
// 90 s, every other user returning through the receiver), its users arriving one after another
// (`BENCH_ARRIVAL_MS`; all at once, every open session has the same age, and the budget's polls
// can only go round them evenly), runs twice at once, each on its own
// emulator and `idv worker` at the same budget: polls placed by learned completion times
// (`IDV_POLL_PLACEMENT=learned`, learning as it runs from nothing) and by the fixed rule
// (`rule`). For the poll-only users it also computes the best fixed schedule for their times
// known in advance at the same number of polls (bench/scale/inspection-schedule.ts). Sizes:
// `BENCH_POPULATION`, `BENCH_MEDIAN_MS`, `BENCH_TAIL_MS`, `BENCH_ARRIVAL_MS`, `IDV_API_RATE`. Rewrites its section of
// docs/benchmarks.md and docs/bench-polls.svg.
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { Runtime } from '@temporalio/worker';
import { DEFAULT_API_RATE } from '../../api/http/call-budget';
import { runtimeOptions } from '../../workers/logging';
import { recordSection } from '../support/record';
import { runBench } from '../support/run-bench';
import { round, summarise } from '../support/stats';
import { bestFixedSchedule } from './inspection-schedule';
import { writeDelayPlot } from './plot';
import { foundDelays, logNormalTimes, type PopulationRun, runPopulation } from './population';
import { startScaleStack } from './stack';
import { pollAttempts } from './worker-metrics';
import { freePort } from '../../workers/dev/free-port';

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POPULATION = numberFrom('BENCH_POPULATION', 1_000);
const MEDIAN_MS = numberFrom('BENCH_MEDIAN_MS', 90_000);
const TAIL_MS = numberFrom('BENCH_TAIL_MS', 10 * 60_000);
const ARRIVAL_MS = numberFrom('BENCH_ARRIVAL_MS', 5 * 60_000);
const RATE = numberFrom('IDV_API_RATE', DEFAULT_API_RATE);
const PLACEMENTS = ['learned', 'rule'] as const;

const mean = (values: readonly number[]) => values.reduce((total, value) => total + value, 0) / values.length;

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('ERROR'));
  const stack = await startScaleStack();
  try {
    const userMs = logNormalTimes(POPULATION, { seed: 1, medianMs: MEDIAN_MS, sigma: 0.84, maxMs: TAIL_MS });
    const started = Date.now();
    const settled = await Promise.allSettled(
      PLACEMENTS.map(async (placement, index) => {
        const emulator = await stack.emulator(11 + index);
        const taskQueue = `bench-polls-${placement}`;
        // Poll attempts against polls made: an attempt without a call lost its turn under the
        // budget and came back after a fair delay.
        const metricsPort = await freePort();
        const worker = await stack.worker({
          taskQueue,
          emulator,
          apiRate: RATE,
          env: { IDV_POLL_PLACEMENT: placement, IDV_METRICS_PORT: String(metricsPort) },
        });
        try {
          const run = await runPopulation({
            name: `polls-${placement}`,
            idv: stack.idv(taskQueue),
            emulator,
            returnUrl: stack.returnUrl,
            userMs,
            redirectEvery: 2,
            // Two populations start at once on one dev server: half the lanes each.
            startLanes: 25,
            arrivalMs: ARRIVAL_MS,
          });
          return { ...run, pollAttempts: await pollAttempts(metricsPort) };
        } finally {
          await worker.stop();
        }
      }),
    );
    // Both run to their end before the stack stops (a failed one would leave the other's users
    // calling a stopped emulator).
    const runs = settled.map((result) => {
      if (result.status === 'rejected') throw result.reason;
      return result.value;
    });
    const wallSeconds = (Date.now() - started) / 1000;
    // The distribution known in advance: another sample of it, not the times measured.
    const fit = logNormalTimes(POPULATION, { seed: 2, medianMs: MEDIAN_MS, sigma: 0.84, maxMs: TAIL_MS });
    const rows: string[] = [];
    const means: Partial<Record<(typeof PLACEMENTS)[number], number>> = {};
    const bestMeans: Partial<Record<(typeof PLACEMENTS)[number], number>> = {};
    const series = [];
    const colors = { learned: '#1f77b4', rule: '#d62728', best: '#2ca02c' };
    for (const [index, placement] of PLACEMENTS.entries()) {
      const run = runs[index] as PopulationRun & { pollAttempts: number };
      if (run.errors.length > 0) process.stderr.write(`${placement}: ${run.errors.join('\n')}\n`);
      const pollOnly = run.flows.filter((flow) => flow.kind === 'poll-only' && flow.ok);
      const redirects = run.flows.filter((flow) => flow.kind === 'redirect');
      const polls = mean(pollOnly.map((flow) => run.bySession[flow.sessionId]?.GetSession ?? 0));
      const delays = pollOnly.map((flow) => flow.delayMs);
      // Completion → the GetSession that found it done: what the placement decides (the close
      // adds the workflow's own steps, the same for both placements).
      const found = foundDelays(run);
      const best = bestFixedSchedule({
        fitMs: fit,
        scoreMs: pollOnly.map((flow) => flow.userMs),
        pollsPerUser: polls,
      });
      const ours = summarise(found);
      means[placement] = mean(found);
      bestMeans[placement] = best.meanDelayMs;
      const redirect = summarise(redirects.map((flow) => flow.delayMs));
      const failures = run.flows.filter((flow) => !flow.ok).length;
      const polled = run.flows.reduce(
        (sum, flow) => sum + (run.bySession[flow.sessionId]?.GetSession ?? 0),
        0,
      );
      rows.push(
        `| ${placement} | ${pollOnly.length} | ${failures} | ${round(polls)} | **${round(mean(found))}** | ${round(ours.p50)} | ${round(ours.p99)} | ${round(best.meanDelayMs)} | **${round(mean(found) / best.meanDelayMs)}x** | ${round(mean(delays))} | ${round(redirect.p50)} | ${round(redirect.p99)} | ${run.busiestSecond} | ${round(run.pollAttempts / polled)} |`,
      );
      series.push({ name: `${placement}: poll-only users`, delaysMs: found, color: colors[placement] });
      if (placement === 'learned')
        series.push({
          name: `best fixed schedule at the learned run's ${round(best.schedule.pollsPerUser)} polls`,
          delaysMs: best.schedule.delaysMs,
          color: colors.best,
        });
    }
    const { learned = Number.NaN, rule = Number.NaN } = means;
    writeDelayPlot(
      join(__dirname, '..', '..', 'docs', 'bench-polls.svg'),
      'Poll-only users: completion → the poll that found it',
      series,
    );
    const lines = [
      '## npm run bench:polls: polls placed by learned completion times',
      '',
      `Run: \`npm run bench:polls\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30, 0)} GiB. ${POPULATION} verifications arriving one after another over ${ARRIVAL_MS / 60_000} min, twice at the same time, each on its own emulator and one \`idv worker\` at ${RATE} calls/s: user times log-normal (median ${MEDIAN_MS / 1000} s, σ 0.84, none over ${TAIL_MS / 60_000} min, seeded; the same for both), every other user returning through the receiver; ${round(wallSeconds)} s. \`learned\` starts from nothing and learns as it runs. Delay = the user finished → the first GetSession that answered done (the emulator's clock); beside it the mean to the workflow's close with the outcome (the server's close time), and for the returning users, whose check comes at once, the same to the close. The best fixed schedule: the poll times after each start, the same for every user, with the least mean delay for the distribution known in advance (fitted on another sample of it, 0.5 s grid: the classic optimal inspection schedule, solved exactly) at the run's polls per poll-only user, scored on the run's poll-only users; it ignores the per-second budget. Plot: [bench-polls.svg](bench-polls.svg).`,
      '',
      '| placement | poll-only users | failures (all) | polls per poll-only user | found: mean ms | found: p50 ms | found: p99 ms | best fixed schedule, same polls: mean ms | ours / best | to the close: mean ms | redirect to the close: p50 ms | p99 ms | busiest second (calls) | poll attempts per GetSession (checks too; above 1: turns lost) |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `Learned against the fixed rule: mean delay of the poll-only users **${round(rule / learned)}x** shorter. The best fixed schedule at the rule's polls is ${round(rule / (bestMeans.rule ?? Number.NaN))}x shorter than the rule: the most any placement of these polls could gain here.`,
    ];
    const markdown = lines.join('\n');
    recordSection('polls', markdown);
    process.stdout.write(`${markdown}\n`);
  } finally {
    await stack.stop();
  }
}

runBench('bench/scale/polls', main);
