import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { useVerificationStack } from '../harness/verification-stack';
import { eventually } from '../harness/eventually';
import { mobileRequest } from '../harness/requests';

describe('verification messages, end to end', () => {
  const stack = useVerificationStack();
  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 300 });
  });

  /** How many updates the workflow accepted, as its history records them. */
  async function acceptedUpdates(workflowId: string): Promise<number> {
    const { events } = await stack().client.workflow.getHandle(workflowId).fetchHistory();
    const accepted = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED;
    return (events ?? []).filter((event) => event.eventType === accepted).length;
  }

  const mobile = () =>
    stack().request({
      ...mobileRequest,
      redactAfter: 'never',
    });

  it('refreshes an expiring step at refreshAfter while the session waits', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 2 });
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    expect(nextStep.nextStep.refresh?.timeToLiveSeconds).toBe(2);
    const refreshed = await eventually(async () => {
      const progress = await handle.progress();
      return (progress.apiCalls.RefreshStepContent ?? 0) >= 2 ? progress : undefined;
    }, 'two automatic refreshes');
    expect(refreshed.nextStep?.content).not.toBe(nextStep.nextStep.content);
    expect(Date.parse(refreshed.nextStep?.refresh?.expiresAt ?? '')).toBeGreaterThan(
      Date.parse(nextStep.nextStep.refresh?.expiresAt ?? ''),
    );
    await handle.cancel('done');
  });

  it('keeps the newer step when an automatic refresh answers after the caller’s', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 30 });
    // The automatic refresh is carried out first, its answer slow to come.
    await stack().control('PUT', '/faults', { operation: 'RefreshStepContent', slowBodyMs: 5_000, count: 1 });
    const refreshes = async () =>
      ((await stack().control('GET', '/counters')).byOperation as Record<string, number>)
        .RefreshStepContent ?? 0;
    const before = await refreshes();
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    await eventually(
      async () => ((await refreshes()) > before ? true : undefined),
      'the automatic refresh sent',
      45_000,
    );
    const step = await handle.refreshStep();
    const completedRefreshes = async () => {
      const { events } = await handle.workflow.fetchHistory();
      const completed = temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED;
      const scheduled = new Map<number, string>();
      let count = 0;
      for (const event of events ?? []) {
        const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
        if (type) scheduled.set(Number(event.eventId), type);
        const done = event.activityTaskCompletedEventAttributes;
        if (
          event.eventType === completed &&
          done &&
          scheduled.get(Number(done.scheduledEventId)) === 'refreshStep'
        )
          count += 1;
      }
      return count;
    };
    await eventually(
      async () => ((await completedRefreshes()) >= 2 ? true : undefined),
      'both refreshes answered',
    );
    const current = (await stack().control('GET', `/sessions/${nextStep.sessionId}`)) as {
      step: { content: string };
    };
    expect(current.step.content).toBe(step.content);
    expect((await handle.progress()).nextStep).toEqual(step);
    await handle.cancel('done');
  }, 90_000);

  it('refreshes on the caller’s request', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(mobile());
    const step = await handle.refreshStep();
    expect(step.method).toBe('DeeplinkToMobile');
    expect(step.content).not.toBe(nextStep.nextStep.content);
    expect((await handle.progress()).nextStep).toEqual(step);
    await handle.cancel('done');
  });

  it('rejects a refresh of a step that cannot be refreshed in its validator (no update recorded)', async () => {
    const { handle } = await stack().idv.startVerification(stack().request({ redactAfter: 'never' }));
    const before = await acceptedUpdates(handle.workflowId);
    const error: unknown = await handle.refreshStep().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((error as WorkflowUpdateFailedError).cause).toMatchObject({
      type: 'InvalidUpdateArgument',
      message: 'the current step has no refreshable content',
    });
    const after = await acceptedUpdates(handle.workflowId);
    expect(after).toBe(before);
    await handle.cancel('done');
  });

  it('submits a native challenge response and succeeds', async () => {
    const request = stack().request({
      provider: 'mdl-digital-credentials',
      capabilities: ['NativeChallenge'],
      providerInput: undefined,
    });
    const { handle, nextStep } = await stack().idv.startVerification({ ...request, redactAfter: 'never' });
    expect(nextStep).toMatchObject({
      collectionMethod: 'SubmitNativeChallengeResponse',
      nextStep: { method: 'PerformNativeChallenge' },
    });
    const progress = await handle.submitNativeChallenge('device-response-token');
    expect(progress.status).toBe('succeeded');
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: 'succeeded' });
    expect(outcome.identity?.person).toBeDefined();
    const counters = await stack().control('GET', '/counters');
    expect(
      (counters.bySession as Record<string, Record<string, number>>)[nextStep.sessionId]?.GetSession,
    ).toBeUndefined();
  });

  it('rejects a native challenge submission for a session whose step is not a native challenge (no update recorded)', async () => {
    const { handle } = await stack().idv.startVerification(stack().request({ redactAfter: 'never' }));
    const before = await acceptedUpdates(handle.workflowId);
    const error: unknown = await handle.submitNativeChallenge('token').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (error as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: 'InvalidUpdateArgument' });
    expect((cause as ApplicationFailure).message).toMatch(/not a native challenge/);
    const after = await acceptedUpdates(handle.workflowId);
    expect(after).toBe(before);
    await handle.cancel('done');
  });

  it('checks at once when the user comes back through the redirect', async () => {
    // The first poll would come after a whole minute: only the redirect signal can end this test in time.
    const request = stack().request({ polling: { initialMs: 60_000, maxMs: 60_000 }, redactAfter: 'never' });
    const { handle, nextStep } = await stack().idv.startVerification(request);
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    const counters = await stack().control('GET', '/counters');
    expect(
      (counters.bySession as Record<string, Record<string, number>>)[nextStep.sessionId]?.GetSession,
    ).toBe(1);
  }, 30_000);

  it('answers progress with status, step, timestamps and API call counts', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never' }),
    );
    const progress = await handle.progress();
    expect(progress).toMatchObject({
      reference: handle.reference,
      status: 'pending',
      sessionId: nextStep.sessionId,
      nextStep: nextStep.nextStep,
      apiCalls: { CreateDirectProviderSession: 1 },
      orphanSweep: false,
    });
    expect(Date.parse(progress.deadline) - Date.parse(progress.startedAt)).toBe(3_600_000);
    await handle.cancel('done');
  });
});
