import { type temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

/** The search attribute Temporal's patches set, which Temporal Cloud does not bill. */
const CHANGE_VERSION = 'TemporalChangeVersion';

/**
 * Billable actions of one history, by kind, as Temporal Cloud counts them (heartbeats are not
 * in a history: not counted). The markers of one workflow task (local activities, patches) are
 * one action; an upsert of `TemporalChangeVersion` alone (a patch's) is none.
 */
export function actionsOf(history: History): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (kind: string, n = 1) => (counts[kind] = (counts[kind] ?? 0) + n);
  const startedAttempts = new Map<number, number>();
  const tasksWithMarkers = new Set<string>();
  for (const event of history.events ?? []) {
    if (event.workflowExecutionStartedEventAttributes) add('workflow starts');
    if (event.activityTaskStartedEventAttributes)
      startedAttempts.set(
        Number(event.activityTaskStartedEventAttributes.scheduledEventId),
        event.activityTaskStartedEventAttributes.attempt ?? 1,
      );
    if (event.activityTaskScheduledEventAttributes) startedAttempts.set(Number(event.eventId), 0);
    if (event.timerStartedEventAttributes) add('timers');
    if (event.workflowExecutionSignaledEventAttributes) add('signals');
    if (event.workflowExecutionUpdateAcceptedEventAttributes) add('updates');
    const upserted = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    if (upserted && Object.keys(upserted).some((name) => name !== CHANGE_VERSION))
      add('search attribute upserts');
    const marker = event.markerRecordedEventAttributes;
    if (marker) tasksWithMarkers.add(String(marker.workflowTaskCompletedEventId));
    if (event.startChildWorkflowExecutionInitiatedEventAttributes) add('child starts');
    if (event.signalExternalWorkflowExecutionInitiatedEventAttributes) add('signals sent');
  }
  // Every attempt of an activity is an action: a poll's retries are its polls.
  for (const attempts of startedAttempts.values()) add('activity attempts', attempts);
  if (tasksWithMarkers.size > 0) add('workflow tasks with markers', tasksWithMarkers.size);
  return counts;
}
