import { temporal } from '@temporalio/proto';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

const EventType = temporal.api.enums.v1.EventType;

// An activity the workflow stops is stopped before anything that follows it: a results fetch
// cancelled mid-download has ended before the clean-up starts the redaction, so it can never
// write the person's attachment after the redaction removed the session's data.
describe('activities a verification stops', () => {
  const stack = useVerificationStack();
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input', latencyMs: 2_000 });
  });

  it('waits for a cancelled results fetch to stop before the clean-up starts the redaction', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    await stack().control('PUT', '/faults', { operation: 'GetAttachment', latencyMs: 20_000 });
    const request = stack().request({ results: 'data+attachments', redactAfter: 0 });
    const { handle, nextStep } = await stack().idv.startVerification(request);
    await eventually(async () => {
      const counters = (await stack().control('GET', '/counters')).bySession as Record<
        string,
        Record<string, number>
      >;
      return counters[nextStep.sessionId]?.GetAttachment ? true : undefined;
    }, 'the attachment download to begin');
    await stack().client.workflow.getHandle(handle.workflowId).cancel();
    await expect(handle.result()).resolves.toMatchObject({
      status: 'failed',
      errorCode: 'ResultsUnavailable',
    });
    await stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`).result();

    const { events } = await stack().client.workflow.getHandle(handle.workflowId).fetchHistory();
    const index = (type: temporal.api.enums.v1.EventType, activity?: string) =>
      (events ?? []).findIndex(
        (event) =>
          event.eventType === type &&
          (activity === undefined ||
            (events ?? []).find(
              (scheduled) =>
                scheduled.eventId?.toString() ===
                event.activityTaskCanceledEventAttributes?.scheduledEventId?.toString(),
            )?.activityTaskScheduledEventAttributes?.activityType?.name === activity),
      );
    const fetchStopped = index(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED, 'fetchResults');
    const redactionStarted = index(EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED);
    expect(fetchStopped).toBeGreaterThan(0);
    expect(fetchStopped).toBeLessThan(redactionStarted);
    await expect(stack().idv.readAttachment(nextStep.sessionId, 'any')).resolves.toBeUndefined();
  }, 60_000);
});
