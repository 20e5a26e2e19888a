import { temporal } from '@temporalio/proto';
import { actionsOf } from '../../bench/scale/billable-actions';

const upsert = (eventId: number, ...names: string[]) => ({
  eventId,
  upsertWorkflowSearchAttributesEventAttributes: {
    searchAttributes: { indexedFields: Object.fromEntries(names.map((name) => [name, {}])) },
  },
});
const marker = (eventId: number, workflowTaskCompletedEventId: number) => ({
  eventId,
  markerRecordedEventAttributes: { markerName: 'core_local_activity', workflowTaskCompletedEventId },
});

describe('bench:actions counts billable actions as Temporal Cloud does', () => {
  it('counts the markers of one workflow task as one action, and no patch search attribute', () => {
    const history = temporal.api.history.v1.History.fromObject({
      events: [
        { eventId: 1, workflowExecutionStartedEventAttributes: {} },
        // A patch and a local activity in one workflow task, a local activity in another.
        marker(5, 4),
        marker(6, 4),
        upsert(7, 'TemporalChangeVersion'),
        upsert(8, 'TemporalChangeVersion', 'IdvStatus'),
        upsert(9, 'IdvStatus'),
        { eventId: 10, activityTaskScheduledEventAttributes: {} },
        { eventId: 11, activityTaskStartedEventAttributes: { scheduledEventId: 10, attempt: 3 } },
        marker(15, 14),
      ],
    });
    expect(actionsOf(history)).toEqual({
      'workflow starts': 1,
      'workflow tasks with markers': 2,
      'search attribute upserts': 2,
      'activity attempts': 3,
    });
  });
});
