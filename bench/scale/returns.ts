// bench/scale/returns.ts: where a returning user's time goes under load. Runs a log-normal
// population on one `idv worker` and, for the returning users, reads each history to split the
// time from the user's return (the receiver's signal) to the outcome into its steps.
// `BENCH_POPULATION`, `BENCH_MEDIAN_MS`, `BENCH_TAIL_MS`, `IDV_API_RATE` as bench/scale.
import { Runtime } from '@temporalio/worker';
import { type temporal } from '@temporalio/proto';
import { DEFAULT_API_RATE } from '../../api/http/call-budget';
import { runtimeOptions } from '../../workers/logging';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { round, summarise } from '../support/stats';
import { logNormalTimes, runPopulation } from './population';
import { startScaleStack } from './stack';

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POPULATION = numberFrom('BENCH_POPULATION', 1_000);
const MEDIAN_MS = numberFrom('BENCH_MEDIAN_MS', 90_000);
const TAIL_MS = numberFrom('BENCH_TAIL_MS', 20 * 60_000);
const RATE = numberFrom('IDV_API_RATE', DEFAULT_API_RATE);

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const ms = (event: HistoryEvent) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);
const typeName = (event: HistoryEvent) => String(event.eventType ?? '');

/** The steps between the return's signal and the close, as named spans (ms). */
export function returnSpans(
  events: readonly HistoryEvent[],
  activityTypes: Map<number, string>,
): Record<string, number> | undefined {
  const signalIndex = events.findIndex(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'redirectCaptured',
  );
  if (signalIndex < 0) return undefined;
  const spans: Record<string, number> = {};
  let last = ms(events[signalIndex] as HistoryEvent);
  for (const event of events.slice(signalIndex + 1)) {
    const t = ms(event);
    const scheduledId =
      event.activityTaskStartedEventAttributes?.scheduledEventId ??
      event.activityTaskCompletedEventAttributes?.scheduledEventId ??
      event.activityTaskFailedEventAttributes?.scheduledEventId ??
      event.activityTaskCanceledEventAttributes?.scheduledEventId;
    const activity =
      event.activityTaskScheduledEventAttributes?.activityType?.name ??
      (scheduledId !== undefined && scheduledId !== null
        ? activityTypes.get(Number(scheduledId))
        : undefined);
    const name = `${typeName(event).replace('EVENT_TYPE_', '')}${activity ? ` ${activity}` : ''}`;
    spans[name] = (spans[name] ?? 0) + (t - last);
    last = t;
  }
  return spans;
}

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
    process.stdout.write(
      `${POPULATION} users, ${RATE} calls/s, ${round((Date.now() - started) / 1000)} s: returning users p50 ${round(p50)} ms, p99 ${round(p99)} ms, max ${round(max)} ms\n`,
    );
    // The slowest returns and, for comparison, all of them: the mean of each step.
    const slowest = [...redirects]
      .sort((a, b) => b.delayMs - a.delayMs)
      .slice(0, Math.max(5, Math.ceil(redirects.length / 50)));
    for (const [label, flows] of [
      ['slowest 2 %', slowest],
      ['all', redirects],
    ] as const) {
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
      process.stdout.write(`\n${label} (${flows.length}): mean ms per step after the return's signal\n`);
      for (const [name, total] of Object.entries(totals).sort((a, b) => b[1] - a[1]))
        process.stdout.write(`  ${round(total / flows.length)}\t${name}\n`);
    }
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench/scale/returns failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
