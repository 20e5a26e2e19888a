import { temporal } from '@temporalio/proto';

const { EventType } = temporal.api.enums.v1;

/** The history events that close a workflow run, whichever way it ends. */
export const closeEventTypes: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
]);

/** How many of `events` close a run (exactly one for a run that ended once). */
export function closeCount(events: ReadonlyArray<{ eventType?: number | null }> | null | undefined): number {
  return (events ?? []).filter((event) => closeEventTypes.has(event.eventType ?? 0)).length;
}
