import { MockActivityEnvironment } from '@temporalio/testing';
import { type VerificationInput } from '../../verification/domain/verification';
import { ApplicationFailure, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { onboardingActivities } from '../../agent-platform/activities/onboarding-activities';
import { OnboardingClient, OnboardingError } from '../../agent-platform/client/onboarding-client';
import { connectionWorkflowId, onboardingWorkflowId } from '../../agent-platform/domain/agent-deliveries';
import {
  type OnboardingInput,
  type OnboardingVerification,
  onboardingReference,
} from '../../agent-platform/domain/onboarding';
import { parseOnboardingSettings } from '../../agent-platform/domain/onboarding-settings';
import { type AgentEvent, agentEventSignal } from '../../agent-platform/shared/messages';
import { verificationEndedSignal } from '../../verification/shared/messages';
import {
  type OnboardingProgress,
  onboardingProgressQuery,
} from '../../agent-platform/shared/onboarding-messages';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';
import { expectSummaryAttributes } from '../harness/summaries';
import { uniqueTaskQueue, withWorker } from '../harness/worker';
import { createActivities } from '../../workers/activities';
import { DataKeys } from '../../codec/data-keys';
import { FixedKeyring } from '../harness/fixed-keyring';
import { AesGcmPayloadCodec } from '../../codec/aes-gcm-codec';
import { payloadsIn } from '../harness/history-payloads';
import { NativeConnection } from '@temporalio/worker';
import { createVerificationWorker } from '../../workers/verification-worker';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from '../harness/env';

const TENANT = 'tenant-o';
/** A tenant the receiver does not onboard: its connections stay with agentConnection. */
const PLAIN = 'tenant-p';
const DAY = 86_400_000;

const mobile = (profileId: string): OnboardingVerification => ({
  verificationProfileId: profileId,
  provider: 'yoti',
  capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
  redactAfter: 'never',
  polling: { initialMs: 200, maxMs: 500 },
});

// The onboarding of a connection, started and driven by the platform's events through the real
// receiver, verifying through the emulator.
describe('onboarding: a connection waited for, verified and reported', () => {
  const receiverLog: string[] = [];
  const stack = useVerificationStack(
    { agentKeys: { [TENANT]: 'agent_key_tenant_o_0123456789', [PLAIN]: 'agent_key_tenant_p_0123456789' } },
    {
      receiver: true,
      receiverLog: (line) => receiverLog.push(line),
      onboarding: (profileId) =>
        parseOnboardingSettings({
          tenants: [TENANT],
          waitFor: ['new_connection', 'credential_request'],
          verification: mobile(profileId),
        }),
    },
  );
  const onboardings = () => new OnboardingClient({ client: stack().client, taskQueue: stack().taskQueue });
  let connections = 0;
  const newConnection = () => `conn-${process.pid}-${(connections += 1)}`;
  /** The platform sends an event to the tenant's webhooks (the receiver's among them). */
  const platformEvent = async (
    connectionId: string,
    objectId: string,
    messageType: string,
    tenant = TENANT,
  ) =>
    (await stack().control('POST', '/agent-events', {
      tenant,
      message_type: messageType,
      object_id: objectId,
      connection_id: connectionId,
    })) as { deliveries: Array<{ status?: number; error?: string }> };
  const progressWhen = (
    connectionId: string,
    ready: (progress: OnboardingProgress) => boolean,
    what: string,
  ) =>
    eventually(async () => {
      const progress = await onboardings()
        .progress(TENANT, connectionId)
        .catch(() => undefined);
      // Past its input check (a run continued into answers its carried counts while checking).
      return progress && progress.stage !== 'checking' && ready(progress) ? progress : undefined;
    }, what);
  /** The session of the onboarding's verification, once created. */
  const verificationSession = (connectionId: string, timeoutMs?: number) =>
    eventually(
      async () => {
        const child = stack().client.workflow.getHandle(`idv-${onboardingReference(TENANT, connectionId)}`);
        const progress = (await child.query('progress').catch(() => undefined)) as
          { sessionId?: string } | undefined;
        return progress?.sessionId;
      },
      'the verification’s session',
      timeoutMs,
    );
  /** Both events through the receiver; resolves with the verification's session. */
  const driveToVerifying = async (connectionId: string) => {
    expect((await platformEvent(connectionId, `${connectionId}-hello`, 'new_connection')).deliveries).toEqual(
      [expect.objectContaining({ status: 200 })],
    );
    await platformEvent(connectionId, `${connectionId}-request`, 'credential_request');
    return await verificationSession(connectionId);
  };

  /** Runs an onboarding started straight through Temporal, bypassing the client; resolves its failure. */
  const bypassingTheClient = async (input: { connectionId: string }): Promise<unknown> =>
    await stack()
      .client.workflow.execute('onboarding', {
        taskQueue: stack().taskQueue,
        workflowId: onboardingWorkflowId(TENANT, input.connectionId),
        args: [input],
      })
      .catch((e: unknown) => e);

  beforeAll(async () => {
    await stack().webhooks.register(TENANT);
    await stack().webhooks.register(PLAIN);
  });
  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
  });
  afterEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'by-input' });
  });

  it('is started and driven by the platform’s events through the receiver, verifies as its child, and reports without personal data', async () => {
    const connectionId = newConnection();
    await platformEvent(connectionId, 'obj-hello', 'new_connection');
    await progressWhen(connectionId, (p) => p.events.total === 1, 'the first event');
    await platformEvent(connectionId, 'obj-request', 'credential_request');
    const sessionId = await verificationSession(connectionId);
    const reference = onboardingReference(TENANT, connectionId);
    const child = await stack().client.workflow.getHandle(`idv-${reference}`).describe();
    expect(child.type).toBe('verificationSession');
    expect(child.parentExecution?.workflowId).toBe(onboardingWorkflowId(TENANT, connectionId));
    // Started by the receiver and by the onboarding (its child), each shows its summary in the UI's list.
    await eventually(async () => {
      const started = await expectSummaryAttributes(
        stack().client,
        `WorkflowId IN ('${onboardingWorkflowId(TENANT, connectionId)}', 'idv-${reference}')`,
      );
      return started.size === 2 ? started : undefined;
    }, 'the onboarding and its verification listed');
    expect(await onboardings().progress(TENANT, connectionId)).toMatchObject({
      stage: 'verifying',
      waitingFor: [],
      verification: { reference, workflowId: `idv-${reference}` },
    });

    await stack().control('POST', `/sessions/${sessionId}/complete`);
    const summary = await onboardings().result(TENANT, connectionId);
    expect(summary).toEqual({
      tenant: TENANT,
      connectionId,
      events: { total: 2, duplicates: 0, ignored: 0, byType: { new_connection: 1, credential_request: 1 } },
      endedBy: 'verified',
      waitedMs: expect.any(Number),
      verification: { reference, workflowId: `idv-${reference}`, status: 'succeeded', sessionId },
    });
    // The person exists at the service; the summary names none of it.
    expect(await stack().control('GET', `/sessions/${sessionId}`)).toMatchObject({ hasIdentityData: true });
    expect(JSON.stringify(summary)).not.toMatch(/identity|attachment|givenName|familyName/i);
    await expect(
      stack().client.workflow.getHandle(connectionWorkflowId(TENANT, connectionId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  /** The events the connection's agentConnection has recorded, once it has `total`. */
  const connectionEvents = (connectionId: string, total: number) =>
    eventually(async () => {
      const events = await stack()
        .client.workflow.getHandle(connectionWorkflowId(TENANT, connectionId))
        .query<{ total: number }>('events')
        .catch(() => undefined);
      return events && events.total >= total ? events : undefined;
    }, 'the connection workflow');

  it('gives the events after its onboarding has ended to the connection’s agentConnection, and starts no second onboarding', async () => {
    const connectionId = newConnection();
    const sessionId = await driveToVerifying(connectionId);
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    await onboardings().result(TENANT, connectionId);
    const handle = stack().client.workflow.getHandle(onboardingWorkflowId(TENANT, connectionId));
    const ended = await handle.describe();

    const late = await platformEvent(connectionId, 'obj-late', 'new_inbox_message');
    expect(late.deliveries).toEqual([expect.objectContaining({ status: 200 })]);
    const again = await platformEvent(connectionId, 'obj-hello-again', 'new_connection');
    expect(again.deliveries).toEqual([expect.objectContaining({ status: 200 })]);
    const after = await handle.describe();
    expect({ runId: after.runId, status: after.status.name }).toEqual({
      runId: ended.runId,
      status: 'COMPLETED',
    });
    // Nothing lost: both are with the connection's own workflow.
    expect((await connectionEvents(connectionId, 2)).total).toBe(2);
    expect(stack().receiver?.spoolDepth()).toBe(0);
    expect(receiverLog.join('\n')).toMatch(/event\(s\) for connections whose onboarding had ended/);
    expect(receiverLog.join('\n')).not.toContain(connectionId);
    await stack().client.workflow.getHandle(connectionWorkflowId(TENANT, connectionId)).terminate();
  });

  it('starts an onboarding on new_connection only: a connection from before onboarding began stays with agentConnection', async () => {
    const connectionId = newConnection();
    await platformEvent(connectionId, 'obj-inbox', 'new_inbox_message');
    expect((await connectionEvents(connectionId, 1)).total).toBe(1);
    await expect(
      stack().client.workflow.getHandle(onboardingWorkflowId(TENANT, connectionId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await stack().client.workflow.getHandle(connectionWorkflowId(TENANT, connectionId)).terminate();
  });

  it('counts an awaited event that came before its new_connection (the platform does not order them)', async () => {
    const connectionId = newConnection();
    // No onboarding runs yet: the event goes to the connection's agentConnection.
    await platformEvent(connectionId, `${connectionId}-request`, 'credential_request');
    expect((await connectionEvents(connectionId, 1)).total).toBe(1);
    await platformEvent(connectionId, `${connectionId}-hello`, 'new_connection');
    const progress = await progressWhen(
      connectionId,
      (p) => p.stage === 'verifying',
      'the onboarding to verify with both events seen',
    );
    expect(progress.events.byType).toMatchObject({ new_connection: 1, credential_request: 1 });
    await onboardings().cancel(TENANT, connectionId);
  });

  it('gives a connection the settings make no valid onboarding for (ids too long) to agentConnection', async () => {
    const connectionId = `c${'x'.repeat(190)}`;
    await platformEvent(connectionId, 'obj-long', 'new_connection');
    expect((await connectionEvents(connectionId, 1)).total).toBe(1);
    await expect(
      stack().client.workflow.getHandle(onboardingWorkflowId(TENANT, connectionId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(receiverLog.join('\n')).toMatch(/make no valid input for/);
    await stack().client.workflow.getHandle(connectionWorkflowId(TENANT, connectionId)).terminate();
  });

  it('onboards a connection whose id looks like a date (platform ids are not anyone’s data)', async () => {
    const connectionId = `19900131-aaaa-bbbb-cccc-${String(process.pid).padStart(12, '0')}`;
    // Its verification runs (the reference is checked for shape only), then is cancelled with it.
    expect(await driveToVerifying(connectionId)).toMatch(/^[0-9a-f-]{36}$/);
    await onboardings().cancel(TENANT, connectionId);
    await expect(onboardings().result(TENANT, connectionId)).rejects.toMatchObject({
      code: 'OnboardingCancelled',
    });
  });

  it('leaves the connections of a tenant not onboarded to agentConnection', async () => {
    const connectionId = newConnection();
    await platformEvent(connectionId, 'obj-plain', 'new_connection', PLAIN);
    const events = await eventually(
      () =>
        stack()
          .client.workflow.getHandle(connectionWorkflowId(PLAIN, connectionId))
          .query<{ total: number }>('events')
          .catch(() => undefined),
      'the connection workflow',
    );
    expect(events.total).toBe(1);
    await expect(
      stack().client.workflow.getHandle(onboardingWorkflowId(PLAIN, connectionId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await stack().client.workflow.getHandle(connectionWorkflowId(PLAIN, connectionId)).terminate();
  });

  it('hands the events of a connection onboarded by hand to its onboarding, for a tenant the settings do not onboard', async () => {
    const connectionId = newConnection();
    await onboardings().start({
      tenant: PLAIN,
      connectionId,
      waitFor: ['new_connection', 'credential_request'],
      verification: mobile(stack().profileId),
    });
    await platformEvent(connectionId, 'obj-hello', 'new_connection', PLAIN);
    await platformEvent(connectionId, 'obj-request', 'credential_request', PLAIN);
    // Both reach the onboarding that owns the connection, not agentConnection.
    const progress = await eventually(async () => {
      const seen = await onboardings()
        .progress(PLAIN, connectionId)
        .catch(() => undefined);
      return seen?.waitingFor.length === 0 ? seen : undefined;
    }, 'both events taken');
    expect(progress.events.byType).toEqual({ new_connection: 1, credential_request: 1 });
    await expect(
      stack().client.workflow.getHandle(connectionWorkflowId(PLAIN, connectionId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await onboardings().cancel(PLAIN, connectionId);
    await expect(onboardings().result(PLAIN, connectionId)).rejects.toMatchObject({
      code: 'OnboardingCancelled',
    });
  });

  it('answers progress while it waits: the types still missing, the counts, the deadline', async () => {
    const connectionId = newConnection();
    const before = Date.now();
    await platformEvent(connectionId, 'obj-hello', 'new_connection');
    const handle = stack().client.workflow.getHandle(onboardingWorkflowId(TENANT, connectionId));
    const event = (overrides: Partial<AgentEvent>): AgentEvent => ({
      tenant: TENANT,
      connectionId,
      messageType: 'new_connection',
      objectId: 'obj-hello',
      receivedAt: new Date().toISOString(),
      ...overrides,
    });
    // A repeat that got past the receiver, and a stray signal of another connection.
    await handle.signal(agentEventSignal, event({}));
    await handle.signal(agentEventSignal, event({ connectionId: 'someone-else' }));
    await handle.signal(agentEventSignal, event({ messageType: 'new_inbox_message', objectId: 'obj-msg' }));
    const progress = await progressWhen(
      connectionId,
      (p) => p.events.total === 2 && p.events.duplicates === 1 && p.events.ignored === 1,
      'every signal counted',
    );
    expect(progress).toEqual({
      tenant: TENANT,
      connectionId,
      stage: 'waiting',
      waitingFor: ['credential_request'],
      events: { total: 2, duplicates: 1, ignored: 1, byType: { new_connection: 1, new_inbox_message: 1 } },
      deadline: expect.any(String),
      startedAt: expect.any(String),
    });
    expect(Date.parse(progress.deadline) - Date.parse(progress.startedAt ?? '')).toBe(7 * DAY);
    const deadline = Date.parse(progress.deadline);
    expect(deadline).toBeGreaterThanOrEqual(before + 7 * DAY - 60_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 7 * DAY);

    await onboardings().cancel(TENANT, connectionId);
    await expect(onboardings().result(TENANT, connectionId)).rejects.toMatchObject({
      name: 'OnboardingError',
      code: 'OnboardingCancelled',
    });
  });

  // Stopped from outside, a run answers queries with the stage it stopped in for ever: the client
  // says it stopped, and how.
  it('answers progress of a run stopped from outside (terminated) as stopped, not as the stage it was in', async () => {
    const connectionId = newConnection();
    await platformEvent(connectionId, `${connectionId}-hello`, 'new_connection');
    await progressWhen(connectionId, (p) => p.stage === 'waiting', 'the wait');
    await stack()
      .client.workflow.getHandle(onboardingWorkflowId(TENANT, connectionId))
      .terminate('by an operator');
    expect(await onboardings().progress(TENANT, connectionId)).toMatchObject({
      stage: 'stopped',
      stoppedAs: 'terminated',
      events: { total: 1 },
    });
  });

  it('answers progress from its first task, while its input is still being checked', async () => {
    const connectionId = newConnection();
    const input: OnboardingInput = {
      tenant: TENANT,
      connectionId,
      waitFor: ['new_connection', 'credential_request'],
      timeoutMs: DAY,
      verification: mobile(stack().profileId),
    };
    // The check (a local activity) holds until released: the first workflow task stays open,
    // and a query that comes meanwhile is answered from it (a task of two seconds heartbeats, so
    // the query is handed over while the check still runs).
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let checking: () => void = () => undefined;
    const checkBegun = new Promise<void>((resolve) => (checking = resolve));
    const activities = createActivities({
      identity: stack().identity,
      vault: stack().store.vault,
      blobs: stack().store.blobs,
      records: stack().store.records,
      dataKeys: new DataKeys(stack().store.dataKeys, new FixedKeyring()),
    });
    const heldCheck = async (given: unknown) => {
      checking();
      await held;
      return await activities.checkOnboardingInput(given);
    };
    await withWorker({ activities: { ...activities, checkOnboardingInput: heldCheck } }, async (context) => {
      const handle = await context.client.workflow.start('onboarding', {
        taskQueue: context.taskQueue,
        workflowId: onboardingWorkflowId(TENANT, connectionId),
        args: [input],
        workflowTaskTimeout: '2 seconds',
      });
      try {
        await checkBegun;
        const progress = await handle.query(onboardingProgressQuery);
        expect(progress).toEqual({
          tenant: TENANT,
          connectionId,
          stage: 'checking',
          waitingFor: ['new_connection', 'credential_request'],
          events: { total: 0, duplicates: 0, ignored: 0, byType: {} },
          deadline: expect.any(String),
          startedAt: expect.any(String),
        });
        expect(Date.parse(progress.deadline) - Date.parse(progress.startedAt ?? '')).toBe(DAY);
        release();
        // Once checked, it waits as always.
        await eventually(
          async () => (await handle.query(onboardingProgressQuery)).stage === 'waiting' || undefined,
          'the run waiting',
        );
      } finally {
        release();
        // Not in the way of the assertion that failed: a run already ended refuses the cancel.
        await handle.cancel().catch(() => undefined);
      }
    });
  });

  it('cancelled while it verifies: its verification is cancelled, the session at the service too, before it ends cancelled', async () => {
    const connectionId = newConnection();
    const sessionId = await driveToVerifying(connectionId);
    await onboardings().cancel(TENANT, connectionId);
    const error: unknown = await onboardings()
      .result(TENANT, connectionId)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OnboardingError);
    expect((error as OnboardingError).code).toBe('OnboardingCancelled');
    // Already so when the onboarding has ended: it waited for its child's clean-up.
    expect(await stack().control('GET', `/sessions/${sessionId}`)).toMatchObject({
      outcome: { done: true, success: false, errorCode: 'Canceled' },
    });
    // Its child reported its ending once its clean-up ran; it closes its own run just after, in a
    // task of its own that may come after the onboarding's.
    const child = stack().client.workflow.getHandle(`idv-${onboardingReference(TENANT, connectionId)}`);
    await expect(child.result()).resolves.toMatchObject({ status: 'cancelled', sessionId });
    expect((await child.describe()).status.name).toBe('COMPLETED');
  });

  it('ends verified when a cancel comes in the same task as its verification’s report', async () => {
    const connectionId = newConnection();
    const sessionId = await driveToVerifying(connectionId);
    const reference = onboardingReference(TENANT, connectionId);
    // Both in its history before a worker takes its next task.
    await stack().stopWorker();
    try {
      const handle = stack().client.workflow.getHandle(onboardingWorkflowId(TENANT, connectionId));
      await handle.signal(verificationEndedSignal, { reference, status: 'succeeded', sessionId });
      await handle.cancel();
    } finally {
      await stack().startWorker();
    }
    const summary = await onboardings().result(TENANT, connectionId);
    expect(summary).toMatchObject({ endedBy: 'verified', verification: { status: 'succeeded' } });
    // The report was this test's: its verification still runs, and goes now.
    await stack().client.workflow.getHandle(`idv-${reference}`).cancel();
  });

  it('ends verified when its verification reports its success while its cancel is waited for', async () => {
    // The verification had succeeded, its clean-up still running, when the onboarding's cancel
    // came: its report comes during the cancel's grace. (Terminated here, it reports only what
    // this test sends.)
    const connectionId = newConnection();
    const sessionId = await driveToVerifying(connectionId);
    const reference = onboardingReference(TENANT, connectionId);
    await stack().client.workflow.getHandle(`idv-${reference}`).terminate('the test reports for it');
    const handle = stack().client.workflow.getHandle(onboardingWorkflowId(TENANT, connectionId));
    await handle.cancel();
    await eventually(async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const asked = events.some(
        (event) =>
          event.requestCancelExternalWorkflowExecutionFailedEventAttributes ??
          event.externalWorkflowExecutionCancelRequestedEventAttributes,
      );
      return asked ? true : undefined;
    }, 'the onboarding to ask its verification to cancel');
    await handle.signal(verificationEndedSignal, { reference, status: 'succeeded', sessionId });
    const summary = await onboardings().result(TENANT, connectionId);
    expect(summary).toMatchObject({ endedBy: 'verified', verification: { status: 'succeeded' } });
  });

  it('reports a verification cancelled on its own (not with the onboarding) in its summary', async () => {
    const connectionId = newConnection();
    await driveToVerifying(connectionId);
    const reference = onboardingReference(TENANT, connectionId);
    await stack().client.workflow.getHandle(`idv-${reference}`).cancel();
    const summary = await onboardings().result(TENANT, connectionId);
    expect(summary).toMatchObject({
      endedBy: 'verified',
      verification: { reference, workflowId: `idv-${reference}`, status: 'cancelled' },
    });
  });

  it('is started again by hand once it has ended, joins a running one, but never verifies a connection twice', async () => {
    const connectionId = newConnection();
    const sessionId = await driveToVerifying(connectionId);
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    await onboardings().result(TENANT, connectionId);
    // Waiting for an event its connection has not had (it counts those the run before counted).
    const input: OnboardingInput = {
      tenant: TENANT,
      connectionId,
      waitFor: ['new_connection', 'new_inbox_message'],
      verification: mobile(stack().profileId),
    };
    const again = await onboardings().start(input);
    expect((await onboardings().start(input)).runId).toBe(again.runId);
    await stack().client.workflow.getHandle(again.workflowId).signal(agentEventSignal, {
      tenant: TENANT,
      connectionId,
      messageType: 'new_inbox_message',
      objectId: 'obj-again',
      receivedAt: new Date().toISOString(),
    });
    const error: unknown = await onboardings()
      .result(TENANT, connectionId)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OnboardingError', code: 'OnboardingAlreadyVerified' });
    expect((error as Error).message).toContain("this connection's verification has run already");
  });

  /** Resolves once Temporal's visibility lists the connection's cancelled onboarding run. */
  const endedRunListed = (connectionId: string) =>
    eventually(async () => {
      const workflowId = onboardingWorkflowId(TENANT, connectionId);
      for await (const run of stack().client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        if (run.status.name === 'CANCELLED') return true;
      return undefined;
    }, 'the ended run listed');

  it('counts, started again by hand after it ended, the events its earlier run took (the platform sends each once)', async () => {
    const connectionId = newConnection();
    // Before the onboarding (to agentConnection, counted by the first run), to it, after it.
    await platformEvent(connectionId, `${connectionId}-inbox-1`, 'new_inbox_message');
    await platformEvent(connectionId, `${connectionId}-hello`, 'new_connection');
    await progressWhen(connectionId, (p) => p.events.total === 2, 'both counted');
    await onboardings().cancel(TENANT, connectionId);
    await expect(onboardings().result(TENANT, connectionId)).rejects.toMatchObject({
      code: 'OnboardingCancelled',
    });
    // Started again by hand once its end is listed (a person would take longer than that).
    await endedRunListed(connectionId);
    await platformEvent(connectionId, `${connectionId}-inbox-2`, 'new_inbox_message');
    const again = await onboardings().start({
      tenant: TENANT,
      connectionId,
      waitFor: ['new_connection', 'credential_request'],
      verification: mobile(stack().profileId),
    });
    const progress = await progressWhen(
      connectionId,
      (p) => p.events.total >= 3,
      'the earlier run’s events counted',
    );
    expect(progress).toMatchObject({
      stage: 'waiting',
      waitingFor: ['credential_request'],
      events: { total: 3, duplicates: 0, byType: { new_connection: 1, new_inbox_message: 2 } },
    });
    // The one event still missing verifies the connection.
    await platformEvent(connectionId, `${connectionId}-request`, 'credential_request');
    expect(await verificationSession(connectionId)).toBeDefined();
    await onboardings().cancel(TENANT, connectionId);
    await expect(stack().client.workflow.getHandle(again.workflowId).result()).rejects.toBeDefined();
  }, 120_000);

  it('counts, started again by hand after a run that refused its input, the events its connection took before', async () => {
    const connectionId = newConnection();
    // A tenant the settings do not onboard: its new_connection stays with agentConnection.
    await platformEvent(connectionId, `${connectionId}-hello`, 'new_connection', PLAIN);
    await eventually(async () => {
      const events = await stack()
        .client.workflow.getHandle(connectionWorkflowId(PLAIN, connectionId))
        .query<{ total: number }>('events')
        .catch(() => undefined);
      return events && events.total >= 1 ? true : undefined;
    }, 'the connection workflow');
    const refused = await stack()
      .client.workflow.execute('onboarding', {
        taskQueue: stack().taskQueue,
        workflowId: onboardingWorkflowId(PLAIN, connectionId),
        args: [{ tenant: PLAIN, connectionId, waitFor: ['credential_request', 'credential_request'] }],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkflowFailedError);
    await eventually(async () => {
      const workflowId = onboardingWorkflowId(PLAIN, connectionId);
      for await (const run of stack().client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        if (run.status.name === 'FAILED') return true;
      return undefined;
    }, 'the refused run listed');
    await onboardings().start({
      tenant: PLAIN,
      connectionId,
      waitFor: ['new_connection', 'credential_request'],
      verification: mobile(stack().profileId),
    });
    // The refused run counted nothing: the new_connection sent before it still counts (once the
    // run has read its connection's earlier events, an activity after its check).
    const progress = await eventually(async () => {
      const seen = await onboardings()
        .progress(PLAIN, connectionId)
        .catch(() => undefined);
      return seen?.events.byType.new_connection === 1 ? seen : undefined;
    }, 'the new_connection sent before counted');
    expect(progress).toMatchObject({ stage: 'waiting', waitingFor: ['credential_request'] });
    await onboardings().cancel(PLAIN, connectionId);
  }, 120_000);

  it('keeps the connection’s earlier events when its earlier run cannot be read (a query no worker answers)', async () => {
    const connectionId = newConnection();
    const input: OnboardingInput = {
      tenant: TENANT,
      connectionId,
      waitFor: ['credential_request'],
      verification: mobile(stack().profileId),
    };
    // An earlier run served by a worker of another task queue, ended; that worker is gone since,
    // so the ended run's `progress` query waits for a worker that never comes.
    const elsewhere = uniqueTaskQueue('gone');
    const connection = await NativeConnection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    try {
      const worker = await createVerificationWorker({
        connection,
        taskQueue: elsewhere,
        identity: stack().identity,
        store: stack().store,
        encryptionKeys: harnessEncryptionKeys(),
        workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
      });
      const earlier = new OnboardingClient({ client: stack().client, taskQueue: elsewhere });
      await worker.runUntil(async () => {
        await earlier.start(input);
        await eventually(
          () =>
            earlier
              .progress(TENANT, connectionId)
              .then((p) => p.stage === 'waiting' || undefined)
              .catch(() => undefined),
          'the earlier run waiting',
        );
        await earlier.cancel(TENANT, connectionId);
        await expect(earlier.result(TENANT, connectionId)).rejects.toMatchObject({
          code: 'OnboardingCancelled',
        });
      });
    } finally {
      await connection.close();
    }
    await endedRunListed(connectionId);
    // The awaited event comes before the onboarding is started again by hand.
    await platformEvent(connectionId, `${connectionId}-request`, 'credential_request');
    await onboardings().start(input);
    // Taken from the connection, though the earlier run's counts could not be read: it verifies.
    // (Three attempts, each waiting 4 s for the earlier run, come first.)
    expect(await verificationSession(connectionId, 45_000)).toBeDefined();
    // The earlier run left unread is said to the workflow (which counts it as a give-up).
    const { events } = await stack()
      .client.workflow.getHandle(onboardingWorkflowId(TENANT, connectionId))
      .fetchHistory();
    const decoded = await new AesGcmPayloadCodec(harnessEncryptionKeys()).decode(payloadsIn(events));
    const answers = decoded.map((payload) => Buffer.from(payload.data ?? []).toString());
    expect(answers.some((answer) => answer.includes('"earlierRunUnread":true'))).toBe(true);
    await onboardings().cancel(TENANT, connectionId);
  }, 120_000);

  /** An onboarding that continues as new past 20 history events, and inbox events of its connection. */
  const shortRunsOnboarding = async () => {
    const connectionId = newConnection();
    const started = await onboardings().start({
      tenant: TENANT,
      connectionId,
      waitFor: ['new_connection', 'credential_request'],
      maxHistoryEvents: 20,
      verification: mobile(stack().profileId),
    });
    const handle = stack().client.workflow.getHandle(started.workflowId);
    const event = (objectId: string): AgentEvent => ({
      tenant: TENANT,
      connectionId,
      messageType: 'new_inbox_message',
      objectId,
      receivedAt: new Date().toISOString(),
    });
    return { connectionId, started, handle, event };
  };

  it('continues as new while it waits before its history grows large, carrying what it has seen', async () => {
    const { connectionId, started, handle, event } = await shortRunsOnboarding();
    const first = await progressWhen(connectionId, () => true, 'the first run');
    for (let n = 0; n < 15; n += 1) await handle.signal(agentEventSignal, event(`msg-${n}`));
    await eventually(
      async () => ((await handle.describe()).runId !== started.runId ? true : undefined),
      'a new run',
    );
    await handle.signal(agentEventSignal, event('msg-3'));
    const carried = await progressWhen(
      connectionId,
      (p) => p.events.total === 15 && p.events.duplicates === 1,
      'every event once, the repeat absorbed',
    );
    expect(carried).toMatchObject({ stage: 'waiting', deadline: first.deadline });
    await onboardings().cancel(TENANT, connectionId);
  });

  it('ignores an event sent by hand whose ids are not the platform’s, so the run it continues into takes what it carries', async () => {
    const { connectionId, started, handle, event } = await shortRunsOnboarding();
    // Longer than any id the receiver takes: its key would break the carried input's bounds.
    await handle.signal(agentEventSignal, event('o'.repeat(600)));
    for (let n = 0; n < 15; n += 1) await handle.signal(agentEventSignal, event(`msg-${n}`));
    await eventually(
      async () => ((await handle.describe()).runId !== started.runId ? true : undefined),
      'a new run',
    );
    const carried = await progressWhen(
      connectionId,
      (p) => p.events.total === 15,
      'the continued run, with every event the platform could have sent',
    );
    expect(carried).toMatchObject({ stage: 'waiting', events: { ignored: 1 } });
    await onboardings().cancel(TENANT, connectionId);
  });

  it('keeps its history bounded while its verification runs: 5,000 events, each run under the bound', async () => {
    const connectionId = newConnection();
    const maxHistoryEvents = 500;
    const started = await onboardings().start({
      tenant: TENANT,
      connectionId,
      maxHistoryEvents,
      verification: mobile(stack().profileId),
    });
    const handle = stack().client.workflow.getHandle(started.workflowId);
    const event = (messageType: AgentEvent['messageType'], objectId: string): AgentEvent => ({
      tenant: TENANT,
      connectionId,
      messageType,
      objectId,
      receivedAt: new Date().toISOString(),
    });
    await handle.signal(agentEventSignal, event('new_connection', connectionId));
    const sessionId = await verificationSession(connectionId);
    // Events keep coming while it verifies, in bursts as a busy platform sends them. Each burst
    // once the last is counted: a run's bound is kept at its tasks, and a loaded machine that
    // holds a task back for seconds would otherwise land thousands in one run (seen: 4,193).
    for (let burst = 0; burst < 100; burst += 1) {
      await Promise.all(
        Array.from({ length: 50 }, (_, n) =>
          handle.signal(agentEventSignal, event('new_inbox_message', `msg-${burst * 50 + n}`)),
        ),
      );
      await progressWhen(connectionId, (p) => p.events.total === 1 + (burst + 1) * 50, `burst ${burst}`);
    }
    await progressWhen(connectionId, (p) => p.events.total === 5_001, 'every event counted');
    await stack().control('POST', `/sessions/${sessionId}/complete`);
    const summary = await onboardings().result(TENANT, connectionId);
    expect(summary).toMatchObject({
      endedBy: 'verified',
      events: { total: 5_001, duplicates: 0 },
      verification: { status: 'succeeded', sessionId },
    });
    const lengths: number[] = [];
    for await (const run of stack().client.workflow.list({ query: `WorkflowId = '${started.workflowId}'` }))
      lengths.push(
        (await stack().client.workflow.getHandle(started.workflowId, run.runId).fetchHistory()).events
          ?.length ?? 0,
      );
    console.log(`onboarding runs' history lengths: ${lengths.join(', ')}`);
    expect(lengths.length).toBeGreaterThan(5);
    // A run continues as new at its first task past the bound; the signals the server accepts
    // while that task is under way still land in it (seen: up to 1,074 on a loaded machine).
    expect(Math.max(...lengths)).toBeLessThanOrEqual(3 * maxHistoryEvents);
  }, 180_000);

  it('refuses invalid input naming each problem, before anything starts', async () => {
    const error: unknown = await onboardings()
      .start({
        tenant: 'no tenant',
        connectionId: 'conn/1',
        waitFor: [],
        timeoutMs: 1_000,
        verification: { ...mobile('not-a-uuid'), providerInput: { name: 'Ada' } } as OnboardingVerification,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OnboardingError);
    expect((error as OnboardingError).code).toBe('InvalidOnboardingInput');
    const message = (error as Error).message;
    for (const problem of [
      'tenant may contain only letters, digits, . _ and -',
      'connectionId may contain only letters, digits, . _ : and -',
      'waitFor needs at least one message type',
      'timeoutMs must be at least 1m',
      'verification.verificationProfileId must be a uuid',
      'verification has unknown fields: providerInput',
    ])
      expect(message).toContain(problem);
    const long = await onboardings()
      .start({ tenant: TENANT, connectionId: 'c'.repeat(180), verification: mobile(stack().profileId) })
      .catch((e: unknown) => e);
    expect((long as Error).message).toMatch(
      /connectionId makes an invalid verification reference: must be at most 200/,
    );
  });

  it('refuses invalid input in the workflow itself at once (a start that bypassed the client)', async () => {
    const connectionId = newConnection();
    const input: OnboardingInput = {
      tenant: TENANT,
      connectionId,
      waitFor: ['new_connection', 'new_connection'],
      verification: { ...mobile(stack().profileId), timeout: 'soon' },
    };
    const error = await bypassingTheClient(input);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: 'InvalidOnboardingInput', nonRetryable: true });
    expect(cause?.message).toBe(
      'invalid onboarding input: waitFor must not repeat a type; verification.timeout must be a duration such as 30m, 1h or 30 days',
    );
    // Asked once ended, it says it refused its input.
    expect(await onboardings().progress(TENANT, connectionId)).toMatchObject({
      tenant: TENANT,
      connectionId,
      stage: 'refused',
      events: { total: 0 },
    });
  });

  it('does not check its input again in a run it continued into: a stricter build must not fail running work', async () => {
    const connectionId = newConnection();
    const now = Date.now();
    // As an earlier build carried it: a provider written as free text, which this build refuses.
    const input: OnboardingInput = {
      tenant: TENANT,
      connectionId,
      waitFor: ['new_connection', 'credential_request'],
      verification: { ...mobile(stack().profileId), provider: 'Yoti UK' },
      carried: {
        startedAt: now,
        deadline: now + DAY,
        events: { total: 1, duplicates: 0, ignored: 0, byType: { new_connection: 1 } },
        keys: ['new_connection:obj-hello'],
      },
    };
    await stack().client.workflow.start('onboarding', {
      taskQueue: stack().taskQueue,
      workflowId: onboardingWorkflowId(TENANT, connectionId),
      args: [input],
    });
    const progress = await progressWhen(connectionId, (p) => p.events.total === 1, 'the carried run');
    expect(progress).toMatchObject({ stage: 'waiting', waitingFor: ['credential_request'] });
    await onboardings().cancel(TENANT, connectionId);
    await expect(onboardings().result(TENANT, connectionId)).rejects.toMatchObject({
      code: 'OnboardingCancelled',
    });
  });

  it.each([
    ['carried empty', { carried: {} }],
    ['carried null, nothing to wait for', { carried: null, waitFor: [] }],
    ['a history bound below its minimum', { maxHistoryEvents: 1 }],
  ])('refuses a continued run’s input that breaks its bounds (%s)', async (_, overrides) => {
    const connectionId = newConnection();
    const now = Date.now();
    const input = {
      tenant: TENANT,
      connectionId,
      verification: mobile(stack().profileId),
      carried: {
        startedAt: now,
        deadline: now + DAY,
        events: { total: 0, duplicates: 0, ignored: 0, byType: {} },
        keys: [],
      },
      ...overrides,
    };
    const error = await bypassingTheClient(input);
    expect((error as WorkflowFailedError).cause).toMatchObject({ type: 'InvalidOnboardingInput' });
  });

  it('prepares the verification as a client start would, and refuses invalid settings for good', async () => {
    const activities = onboardingActivities({
      identity: stack().identity,
      vault: stack().store.vault,
      records: stack().store.records,
      dataKeys: stack().dataKeys,
    });
    // The activity looks its verification up in Temporal through the worker's client.
    const environment = new MockActivityEnvironment({}, { client: stack().client });
    const prepare = (
      request: Parameters<typeof activities.prepareOnboardingVerification>[0],
    ): Promise<VerificationInput> =>
      environment.run((args: typeof request) => activities.prepareOnboardingVerification(args), request);
    const prepared = await prepare({
      tenant: TENANT,
      connectionId: 'conn-prepared',
      verification: mobile(stack().profileId),
    });
    expect(prepared).toMatchObject({
      reference: `onboarding-verification:${TENANT}:conn-prepared`,
      results: 'none',
      timeout: 3_600_000,
      redactAfter: 'never',
    });
    expect(await stack().store.dataKeys.get(prepared.dataKeyId)).toMatchObject({ state: 'live' });
    const refused: unknown = await prepare({
      tenant: TENANT,
      connectionId: 'conn-refused',
      verification: { ...mobile(stack().profileId), capabilities: [] },
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({
      type: 'InvalidOnboardingInput',
      nonRetryable: true,
      message: 'invalid onboarding input: verification.capabilities needs at least one capability',
    });
  });
});
