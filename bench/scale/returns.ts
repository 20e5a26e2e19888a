// `npm run bench:returns`: where a returning user's time goes under load. Runs a log-normal
// population on one `idv worker` and, for the returning users, reads each history to split the
// time from the user's return (the receiver's signal) to the outcome into its steps (the span
// before each history event, by event type and activity). Sizes as bench/scale
// (`BENCH_POPULATION`, `BENCH_MEDIAN_MS`, `BENCH_TAIL_MS`); the worker reads its own variables
// (`IDV_API_RATE`, `IDV_WORKFLOW_CACHE`). Rewrites its section of docs/benchmarks.md.
import { Runtime } from '@temporalio/worker';
import { DEFAULT_API_RATE } from '../../api/http/call-budget';
import { runtimeOptions } from '../../workers/logging';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { recordSection } from '../support/record';
import { runBench } from '../support/run-bench';
import { round, summarise } from '../support/stats';
import { cpus, totalmem } from 'node:os';
import { logNormalTimes, runPopulation } from './population';
import { startScaleStack } from './stack';
import { returnSpans } from './return-spans';

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POPULATION = numberFrom('BENCH_POPULATION', 1_000);
const MEDIAN_MS = numberFrom('BENCH_MEDIAN_MS', 90_000);
const TAIL_MS = numberFrom('BENCH_TAIL_MS', 20 * 60_000);
const RATE = numberFrom('IDV_API_RATE', DEFAULT_API_RATE);

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('ERROR'));
  const stack = await startScaleStack();
  try {
    const emulator = await stack.emulator(7);
    const worker = await stack.worker({ taskQueue: 'bench-returns', emulator, apiRate: RATE });
    const idv = stack.idv('bench-returns');
    const started = Date.now();
    const run = await runPopulation({
      name: 'returns',
      idv,
      emulator,
      returnUrl: stack.returnUrl,
      userMs: logNormalTimes(POPULATION, { seed: 1, medianMs: MEDIAN_MS, sigma: 0.84, maxMs: TAIL_MS }),
      redirectEvery: 2,
    });
    await worker.stop();
    const redirects = run.flows.filter((flow) => flow.kind === 'redirect');
    const { p50, p99, max } = summarise(redirects.map((flow) => flow.delayMs));
    // Returns while verifications were still being started share the worker with the starts.
    const startsSeconds = round((run.startsEndedAt - started) / 1000);
    // Only returns that ended with their outcome have a time (a failed flow's is NaN).
    const timed = redirects.filter((flow) => flow.ok && flow.finishedAt !== undefined);
    const whileStarting = timed.filter((flow) => (flow.finishedAt as number) < run.startsEndedAt);
    const during = summarise(whileStarting.map((flow) => flow.delayMs));
    const after = summarise(
      timed.filter((flow) => (flow.finishedAt as number) >= run.startsEndedAt).map((flow) => flow.delayMs),
    );
    const lines = [
      "## npm run bench:returns: where a returning user's time goes under load",
      '',
      `Run: \`npm run bench:returns\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30, 0)} GiB. ${POPULATION} verifications at once on one \`idv worker\` at ${RATE} calls/s (user times log-normal, median ${MEDIAN_MS / 1000} s, none over ${TAIL_MS / 60_000} min; every other user returns through the receiver), ${round((Date.now() - started) / 1000)} s. Returning users, the user finished → outcome known (the server's close time): p50 **${round(p50)} ms**, p99 **${round(p99)} ms**, max ${round(max)} ms. The starts took ${startsSeconds} s: the ${whileStarting.length} returns meanwhile p50 ${round(during.p50)} ms, p99 ${round(during.p99)} ms; the ${timed.length - whileStarting.length} after them p50 ${round(after.p50)} ms, p99 ${round(after.p99)} ms.`,
      '',
      "Each step is the time before a history event after the return's signal, by event type (and activity), as a mean over the returns; a row `(in the task) … running` is a local activity's run inside the workflow task, a part of the span before WORKFLOW_TASK_COMPLETED:",
      '',
    ];
    // The slowest returns beside all of them: the mean of each step.
    const slowest = [...redirects]
      .sort((a, b) => b.delayMs - a.delayMs)
      .slice(0, Math.max(5, Math.ceil(redirects.length / 50)));
    const means: Array<Record<string, number>> = [];
    for (const flows of [slowest, redirects]) {
      const totals: Record<string, number> = {};
      for (const flow of flows) {
        const handle = stack.client.workflow.getHandle(verificationWorkflowId(flow.reference));
        const history = await handle.fetchHistory();
        const events = history.events ?? [];
        const activityTypes = new Map<number, string>();
        for (const event of events)
          if (event.activityTaskScheduledEventAttributes?.activityType?.name)
            activityTypes.set(
              Number(event.eventId),
              event.activityTaskScheduledEventAttributes.activityType.name,
            );
        for (const [name, value] of Object.entries(returnSpans(events, activityTypes) ?? {}))
          totals[name] = (totals[name] ?? 0) + value;
      }
      means.push(
        Object.fromEntries(Object.entries(totals).map(([name, total]) => [name, total / flows.length])),
      );
    }
    const [slow = {}, all = {}] = means;
    lines.push(
      `| step (before the event) | slowest ${slowest.length}: mean ms | all ${redirects.length}: mean ms |`,
      '|---|---|---|',
    );
    for (const name of Object.keys(slow)
      .filter((key) => Math.abs(slow[key] ?? 0) >= 10 || Math.abs(all[key] ?? 0) >= 10)
      .sort((a, b) => (slow[b] ?? 0) - (slow[a] ?? 0)))
      lines.push(`| ${name} | ${round(slow[name] ?? 0)} | ${round(all[name] ?? 0)} |`);
    const markdown = lines.join('\n');
    recordSection('returns', markdown);
    process.stdout.write(`${markdown}\n`);
  } finally {
    await stack.stop();
  }
}

runBench('bench/scale/returns', main);
