// The steps of a returning user's time in a verification's history, for bench:returns: the span
// from the user's return (the receiver's signal) to each later history event, by event type and
// activity, and the runs of local activities inside their workflow task.
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const ms = (event: HistoryEvent) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);
const typeName = (event: HistoryEvent) =>
  (temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(
    'EVENT_TYPE_',
    '',
  );

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
  let taskStartedMs = last;
  for (const event of events.slice(signalIndex + 1)) {
    if (event.workflowTaskStartedEventAttributes) taskStartedMs = ms(event);
    // A local activity runs inside its workflow task: its marker tells how long it ran (its
    // perceived completion is the task's start plus its run), a part of the task's span.
    const local = localActivityRun(event, taskStartedMs);
    if (local) {
      const step = `(in the task) ${local.type} running`;
      spans[step] = (spans[step] ?? 0) + local.ms;
    }
    // An activity's started event is written with its completion but stamped with its start: the
    // span before it is the task's dispatch (the server's matching and a worker's free slot), the
    // span after it the activity itself (its turn under the budget and its call).
    const t = ms(event);
    // Stamped before the event written ahead of it (a poll that found the session done while the
    // return was handled, a retried attempt): not a step of the return.
    if (t < last) continue;
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
    const name = `${typeName(event)}${activity ? ` ${activity}` : ''}`;
    spans[name] = (spans[name] ?? 0) + (t - last);
    last = t;
  }
  return spans;
}

/** A local activity's marker: its type and how long it ran, from the task's start. */
function localActivityRun(
  event: HistoryEvent,
  taskStartedMs: number,
): { type: string; ms: number } | undefined {
  const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  const marker = JSON.parse(Buffer.from(data).toString()) as {
    activity_type?: string;
    complete_time?: { seconds?: number | string; nanos?: number };
  };
  const at = marker.complete_time;
  const completeMs = Number(at?.seconds ?? Number.NaN) * 1000 + Math.round((at?.nanos ?? 0) / 1e6);
  if (marker.activity_type === undefined || !Number.isFinite(completeMs)) return undefined;
  return { type: marker.activity_type, ms: Math.max(0, completeMs - taskStartedMs) };
}
