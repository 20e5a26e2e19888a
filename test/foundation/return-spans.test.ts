import { temporal } from '@temporalio/proto';
import { returnSpans } from '../../bench/scale/return-spans';

const { EventType } = temporal.api.enums.v1;
const T0 = Date.parse('2026-11-30T12:00:00.000Z');
/** An event of `type` `atMs` after the return's signal. */
const at = (
  eventId: number,
  atMs: number,
  type: temporal.api.enums.v1.EventType,
  attributes: object = {},
) => ({
  eventId,
  eventType: type,
  eventTime: { seconds: Math.floor((T0 + atMs) / 1000), nanos: ((T0 + atMs) % 1000) * 1e6 },
  ...attributes,
});
/** A local activity's marker as the SDK's core writes it: completed `ranMs` after its task started. */
const localActivity = (eventId: number, atMs: number, type: string, completeMs: number) =>
  at(eventId, atMs, EventType.EVENT_TYPE_MARKER_RECORDED, {
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      details: {
        data: {
          payloads: [
            {
              data: Buffer.from(
                JSON.stringify({
                  seq: 1,
                  attempt: 1,
                  activity_id: '1',
                  activity_type: type,
                  complete_time: { seconds: Math.floor(completeMs / 1000), nanos: (completeMs % 1000) * 1e6 },
                }),
              ),
            },
          ],
        },
      },
    },
  });

describe('bench:returns splits a return into its steps', () => {
  it('gives each local activity its run inside the workflow task, beside the task’s own span', () => {
    const { events } = temporal.api.history.v1.History.fromObject({
      events: [
        at(10, 0, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, {
          workflowExecutionSignaledEventAttributes: { signalName: 'redirectCaptured' },
        }),
        at(11, 2, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
        at(12, 20, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, { workflowTaskStartedEventAttributes: {} }),
        at(13, 300, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
        // Its perceived completion: the task's start (20 ms) plus its run.
        localActivity(14, 300, 'checkSession', T0 + 20 + 120),
        localActivity(15, 300, 'closeCreation', T0 + 20 + 40),
        at(16, 300, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
      ],
    });
    const spans = returnSpans(events ?? [], new Map());
    expect(spans).toMatchObject({
      WORKFLOW_TASK_SCHEDULED: 2,
      WORKFLOW_TASK_STARTED: 18,
      WORKFLOW_TASK_COMPLETED: 280,
      '(in the task) checkSession running': 120,
      '(in the task) closeCreation running': 40,
    });
  });

  it('has no steps for a verification whose user never returned', () => {
    const { events } = temporal.api.history.v1.History.fromObject({
      events: [at(1, 0, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)],
    });
    expect(returnSpans(events ?? [], new Map())).toBeUndefined();
  });
});
