import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities } from '../../activities/index';
import { LocalBlobStore } from '../../activities/stores/blob-store';
import { FileSessionVault } from '../../activities/stores/session-vault';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { parseVerificationRequest } from '../../client/parse-request';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { type sessionRedaction } from '../../workflows/session-redaction';
import { verificationSession } from '../../workflows/verification-session';
import { withTimeSkipping } from '../harness/time-skipping';

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

  const activities = () =>
    createActivities({
      identity,
      vault: new FileSessionVault(join(dataDir, 'vault')),
      blobs: new LocalBlobStore(join(dataDir, 'blobs')),
    });
  const profileId = () => emulator.verificationProfiles[0]?.id ?? '';

  it('cancels at the service after a 1-hour timeout, in seconds', async () => {
    const input = parseVerificationRequest({
      reference: 'ts-timeout',
      verificationProfileId: profileId(),
      provider: 'mdl-digital-credentials',
      capabilities: ['NativeChallenge'],
      timeout: '1h',
      redactAfter: 'never',
      polling: { maxMs: 300_000 },
    });
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

  it('redacts 30 days after the outcome, in seconds', async () => {
    emulator.store.script = { ...emulator.store.script, latencyMs: 0 };
    const input = parseVerificationRequest({
      reference: 'ts-redact',
      verificationProfileId: profileId(),
      provider: 'trinsic-test-database-lookup',
      capabilities: ['PollResult'],
      providerInput: {
        'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode: '123456' },
      },
      results: 'data+attachments',
      redactAfter: '30 days',
    });
    const report = await withTimeSkipping({ activities: activities() }, async ({ client, taskQueue }) => {
      const outcome = await client.workflow.execute(verificationSession, {
        taskQueue,
        workflowId: 'idv-ts-redact',
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
    expect(report).toMatchObject({ redactedAtService: true, attachmentsDeleted: 1 });
    expect(report.waitedMs).toBeGreaterThanOrEqual(30 * 24 * HOUR);
    expect(emulator.store.sessions.get(report.sessionId)?.redacted?.by).toBe('request');
  });
});
