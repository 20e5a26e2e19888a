import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { type ActivityDeps } from '../../workers/activities';
import { createActivities } from '../../workers/activities';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { type AgentMessageType, onboardingWorkflowId } from '../../agent-platform/domain/agent-deliveries';
import { type OnboardingInput, onboardingReference } from '../../agent-platform/domain/onboarding';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { type AgentEvent, agentEventSignal } from '../../agent-platform/shared/messages';
import { type onboarding } from '../../agent-platform/workflows/onboarding';
import { onboardingProgressQuery } from '../../agent-platform/shared/onboarding-messages';
import { localActivityDeps } from '../harness/activity-deps';
import { type TimeSkippingContext, withTimeSkipping } from '../harness/time-skipping';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const TENANT = 'tenant-ts';

// Days of waiting on the time-skipping server: they pass in seconds.
describe('onboarding timers on the time-skipping server', () => {
  let emulator: Emulator;
  let identity: IdentityClient;
  let dataDir: string;
  let deps: ActivityDeps;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 7 });
    // The simulated person finishes at once, before a step refresh is due on skipped time: the
    // verification is not what these tests wait for.
    emulator.store.script = { ...emulator.store.script, latencyMs: 0, stepTtlSeconds: 30 * 86_400 };
    identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-onboarding-ts-'));
    deps = await localActivityDeps(dataDir, identity);
  });
  afterAll(async () => {
    await identity.close();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const input = (connectionId: string): OnboardingInput => ({
    tenant: TENANT,
    connectionId,
    waitFor: ['new_connection', 'credential_request'],
    verification: {
      verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
      redactAfter: 'never',
    },
  });
  const event = (connectionId: string, messageType: AgentMessageType, objectId: string): AgentEvent => ({
    tenant: TENANT,
    connectionId,
    messageType,
    objectId,
    receivedAt: new Date().toISOString(),
  });
  /** Started as the receiver starts it: signal-with-start with the connection's first event. */
  const startWithNewConnection = ({ client, taskQueue }: TimeSkippingContext, connectionId: string) =>
    client.workflow.signalWithStart<typeof onboarding, [AgentEvent]>('onboarding', {
      workflowId: onboardingWorkflowId(TENANT, connectionId),
      taskQueue,
      args: [input(connectionId)],
      signal: agentEventSignal,
      signalArgs: [event(connectionId, 'new_connection', 'hello')],
    });

  it('waits days for the second event it needs, then verifies', async () => {
    const started = Date.now();
    const { waiting, summary } = await withTimeSkipping(
      { activities: createActivities(deps) },
      async (context) => {
        const handle = await startWithNewConnection(context, 'conn-days');
        await context.env.sleep(3 * DAY);
        const waiting = await handle.query(onboardingProgressQuery);
        await handle.signal(agentEventSignal, event('conn-days', 'credential_request', 'request'));
        return { waiting, summary: await handle.result() };
      },
    );
    expect(waiting).toMatchObject({ stage: 'waiting', waitingFor: ['credential_request'] });
    expect(summary).toMatchObject({
      endedBy: 'verified',
      events: { total: 2, byType: { new_connection: 1, credential_request: 1 } },
      verification: { reference: onboardingReference(TENANT, 'conn-days'), status: 'succeeded' },
    });
    expect(summary.waitedMs).toBeGreaterThanOrEqual(3 * DAY);
    expect(summary.waitedMs).toBeLessThan(4 * DAY);
    expect(Date.now() - started).toBeLessThan(HOUR);
  });

  /** Signals, past the deadline, an awaited event received at `receivedAt(deadline)`; resolves with the summary. */
  const lateEvent = (connectionId: string, receivedAt: (deadlineMs: number) => number) =>
    withTimeSkipping({ activities: createActivities(deps) }, async (context) => {
      const handle = await startWithNewConnection(context, connectionId);
      // Answered from the first task, while the input is checked too: the deadline is the input's.
      const { deadline } = await handle.query(onboardingProgressQuery);
      const deadlineMs = Date.parse(deadline ?? '');
      // The deadline's timer has fired (Temporal came back); the receiver's spool replays after.
      await context.env.sleep(7 * DAY + 30_000);
      await handle.signal(agentEventSignal, {
        ...event(connectionId, 'credential_request', 'request'),
        receivedAt: new Date(receivedAt(deadlineMs)).toISOString(),
      });
      return await handle.result();
    });

  it('verifies with an event received before its deadline and handed over after it', async () => {
    const summary = await lateEvent('conn-spooled', (deadlineMs) => deadlineMs - 60_000);
    expect(summary).toMatchObject({
      endedBy: 'verified',
      events: { total: 2, byType: { new_connection: 1, credential_request: 1 } },
    });
  });

  it('counts an event that comes just after its deadline, rather than lose it', async () => {
    // The receiver hands it to the onboarding while it runs, and to no one else.
    const summary = await lateEvent('conn-just-late', (deadlineMs) => deadlineMs + 10_000);
    expect(summary).toMatchObject({ endedBy: 'verified', events: { total: 2, ignored: 0 } });
  });

  it('ends timed out after 7 days without the events it needs, and starts no verification', async () => {
    const sessionsBefore = emulator.store.sessions.size;
    const { summary, child } = await withTimeSkipping(
      { activities: createActivities(deps) },
      async (context) => {
        const handle = await startWithNewConnection(context, 'conn-quiet');
        const summary = await handle.result();
        const child = await context.client.workflow
          .getHandle(`idv-${onboardingReference(TENANT, 'conn-quiet')}`)
          .describe()
          .catch((error: unknown) => error);
        return { summary, child };
      },
    );
    expect(summary).toEqual({
      tenant: TENANT,
      connectionId: 'conn-quiet',
      events: { total: 1, duplicates: 0, ignored: 0, byType: { new_connection: 1 } },
      endedBy: 'timed-out',
      waitedMs: expect.any(Number),
    });
    expect(summary.waitedMs).toBeGreaterThanOrEqual(7 * DAY);
    expect(summary.waitedMs).toBeLessThan(7 * DAY + HOUR);
    expect(child).toBeInstanceOf(WorkflowNotFoundError);
    expect(emulator.store.sessions.size).toBe(sessionsBefore);
  });
});
