import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities } from '../../workers/activities';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { prepareVerificationInput } from '../../verification/client/prepare-input';
import { recordOfStart, type VerificationRequest } from '../../verification/domain/verification';
import { type ActivityDeps } from '../../workers/activities';
import { localActivityDeps } from '../harness/activity-deps';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { type sessionRedaction } from '../../verification/workflows/session-redaction';
import { progressQuery } from '../../verification/shared/messages';
import { eventually } from '../harness/eventually';
import { verificationSession } from '../../verification/workflows/verification-session';
import { emulatorControl } from '../../emulator/control-client';
import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { withTimeSkipping } from '../harness/time-skipping';
import { testProviderRequest } from '../harness/requests';

const HOUR = 3_600_000;

// Timer-heavy paths on the time-skipping server: hours and days pass in seconds.
describe('verification timers on the time-skipping server', () => {
  let emulator: Emulator;
  let identity: IdentityClient;
  let dataDir: string;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 5, sessionExpirationSeconds: 48 * 3600 });
    identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-ts-'));
  });
  afterAll(async () => {
    await identity.close();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  let deps: ActivityDeps;
  beforeAll(async () => {
    deps = await localActivityDeps(dataDir, identity);
  });
  const activities = () => createActivities(deps);
  const profileId = () => emulator.verificationProfiles[0]?.id ?? '';

  it('cancels at the service after a 1-hour timeout, in seconds', async () => {
    const input = await prepareVerificationInput(
      {
        reference: 'ts-timeout',
        verificationProfileId: profileId(),
        provider: 'mdl-digital-credentials',
        capabilities: ['NativeChallenge'],
        timeout: '1h',
        redactAfter: 'never',
        polling: { maxMs: 300_000 },
      },
      deps.dataKeys,
    );
    const started = Date.now();
    const { outcome, elapsedWorkflowMs } = await withTimeSkipping(
      { activities: activities() },
      async ({ client, taskQueue }) => {
        const handle = await client.workflow.start(verificationSession, {
          taskQueue,
          workflowId: 'idv-ts-timeout',
          args: [input],
        });
        const result = await handle.result();
        const description = await handle.describe();
        return {
          outcome: result,
          elapsedWorkflowMs: (description.closeTime?.getTime() ?? 0) - description.startTime.getTime(),
        };
      },
    );
    expect(outcome).toMatchObject({ status: 'timed-out', errorCode: 'Canceled' });
    expect(elapsedWorkflowMs).toBeGreaterThanOrEqual(HOUR);
    expect(Date.now() - started).toBeLessThan(HOUR);
    const view = emulator.store.sessions.get(outcome.sessionId ?? '');
    expect(view?.outcome).toEqual({ done: true, success: false, errorCode: 'Canceled' });
  });

  /** Runs a verification to its outcome, then its redaction: the report and how long it waited. */
  const verifyThenRedact = async (reference: string, overrides: Partial<VerificationRequest>) => {
    emulator.store.script = { ...emulator.store.script, latencyMs: 0 };
    const input = await prepareVerificationInput(
      testProviderRequest(reference, profileId(), overrides),
      deps.dataKeys,
    );
    return await withTimeSkipping({ activities: activities() }, async ({ client, taskQueue }) => {
      const outcome = await client.workflow.execute(verificationSession, {
        taskQueue,
        workflowId: `idv-${reference}`,
        args: [input],
      });
      expect(outcome.status).toBe('succeeded');
      expect(emulator.store.sessions.get(outcome.sessionId ?? '')?.identity).toBeDefined();
      const redaction = client.workflow.getHandle<typeof sessionRedaction>(`idv-redact-${outcome.sessionId}`);
      const result = await redaction.result();
      const description = await redaction.describe();
      return {
        ...result,
        waitedMs: (description.closeTime?.getTime() ?? 0) - description.startTime.getTime(),
      };
    });
  };

  it('redacts 30 days after the outcome, in seconds', async () => {
    const report = await verifyThenRedact('ts-redact', {
      results: 'data+attachments',
      redactAfter: '30 days',
    });
    expect(report).toMatchObject({ redactedAtService: true, attachmentsDeleted: 1, dataKeyDestroyed: true });
    expect(report.waitedMs).toBeGreaterThanOrEqual(30 * 24 * HOUR);
    expect(emulator.store.sessions.get(report.sessionId ?? '')?.redacted?.by).toBe('request');
  });

  it('redacts results nobody confirmed an hour after delivery was due', async () => {
    const report = await verifyThenRedact('ts-undelivered', { results: 'data', redactAfter: 0 });
    expect(report).toMatchObject({ redactedAtService: true, dataKeyDestroyed: true });
    expect(report.waitedMs).toBeGreaterThanOrEqual(HOUR);
    expect(report.waitedMs).toBeLessThan(2 * HOUR);
  });

  // A service whose redaction erases only what it holds: a session redacted while it ran may
  // gather the person's data afterwards, whoever ends it.
  it('redacts again once a session it redacted while live has ended, though not by its cancel', async () => {
    const control = emulatorControl(emulator.controlUrl);
    const script = emulator.store.script;
    emulator.store.script = { ...script, outcome: 'manual', latencyMs: 0, redactionSticks: false };
    await control('PUT', '/faults', { operation: 'CancelSession', errorRate: 1, errorStatus: 503 });
    const redactions = (sessionId: string) =>
      emulator.store.counters.bySession.get(sessionId)?.get('RedactSession') ?? 0;
    try {
      const input = await prepareVerificationInput(
        testProviderRequest('ts-late-ending', profileId(), { results: 'none', redactAfter: 0 }),
        deps.dataKeys,
      );
      const sessionId = await withTimeSkipping(
        { activities: activities() },
        async ({ env, client, taskQueue }) => {
          const handle = await client.workflow.start(verificationSession, {
            taskQueue,
            workflowId: 'idv-ts-late-ending',
            args: [input],
          });
          const created = await eventually(
            async () => (await handle.query(progressQuery)).sessionId,
            'the session created',
          );
          // The cancel is refused throughout the verification's clean-up: its redaction ends it.
          await handle.cancel();
          await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
          // Past the ending's head start, the session is redacted while it still runs. Time moves
          // a minute at a time (the redaction may not have armed its wait yet), never past it.
          await eventually(async () => {
            if (redactions(created) >= 1) return true;
            await env.sleep(60_000);
            return undefined;
          }, 'the first redaction');
          expect(emulator.store.sessions.get(created)?.outcome.done).toBe(false);
          // The user finishes meanwhile, and the service then answers the ending's cancel.
          await control('POST', `/sessions/${created}/complete`);
          expect(emulator.store.sessions.get(created)?.identity).toBeDefined();
          await control('DELETE', '/faults');
          await client.workflow.getHandle<typeof sessionRedaction>(`idv-redact-${created}`).result();
          return created;
        },
      );
      expect(redactions(sessionId)).toBe(2);
      expect(emulator.store.sessions.get(sessionId)?.identity).toBeUndefined();
    } finally {
      emulator.store.script = script;
      await control('DELETE', '/faults');
    }
  }, 120_000);

  it('gives up redacting at the service after a week of 5xx, visibly, having shredded its own data', async () => {
    const control = emulatorControl(emulator.controlUrl);
    emulator.store.script = { ...emulator.store.script, latencyMs: 0 };
    await control('PUT', '/faults', { operation: 'RedactSession', errorRate: 1, errorStatus: 503 });
    try {
      const request = testProviderRequest('ts-redact-fails', profileId(), {
        results: 'data',
        redactAfter: '1h',
      });
      // An earlier start of the reference, taken over by this one: its key sealed its own input.
      const earlier = await prepareVerificationInput(request, deps.dataKeys);
      await deps.records.reserve(recordOfStart(earlier));
      const input = await prepareVerificationInput(request, deps.dataKeys);
      expect(await deps.records.restarted(input.reference, recordOfStart(input))).toBe(true);
      const { error, waitedMs, outcome } = await withTimeSkipping(
        { activities: activities() },
        async ({ client, taskQueue }) => {
          const result = await client.workflow.execute(verificationSession, {
            taskQueue,
            workflowId: 'idv-ts-redact-fails',
            args: [input],
          });
          const redaction = client.workflow.getHandle(`idv-redact-${result.sessionId}`);
          const failure: unknown = await redaction.result().catch((e: unknown) => e);
          const description = await redaction.describe();
          return {
            outcome: result,
            error: failure,
            waitedMs: (description.closeTime?.getTime() ?? 0) - description.startTime.getTime(),
          };
        },
      );
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('MaintenanceGaveUp');
      expect(cause.message).toMatch(/^redaction: redacting at the service gave up: ServerError/);
      // Due after an hour, then a week of hourly rounds: ended within its bound, not waiting on.
      expect(waitedMs).toBeGreaterThanOrEqual(7 * 24 * HOUR);
      expect(waitedMs).toBeLessThan(8 * 24 * HOUR);
      // Our side went at its due time all the same: nothing readable here.
      expect(await deps.dataKeys.destroy(input.dataKeyId)).toBe(true);
      await expect(
        deps.dataKeys.open({ sealed: 'aes-256-gcm', keyId: input.dataKeyId, data: '' }),
      ).rejects.toThrow(/destroyed/);
      await expect(deps.vault.accessKey(outcome.sessionId ?? '')).rejects.toThrow(/no results access key/);
      // The earlier start's key too, although the erasure was never recorded.
      await expect(
        deps.dataKeys.open({ sealed: 'aes-256-gcm', keyId: earlier.dataKeyId, data: '' }),
      ).rejects.toThrow(/destroyed/);
      expect((await deps.records.get(input.reference))?.redactedAt).toBeUndefined();
    } finally {
      await control('DELETE', '/faults');
    }
  }, 300_000);
});
