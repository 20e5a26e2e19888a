import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sessionErrorCodes } from '../../common/identity-enums';
import { useVerificationStack } from '../harness/verification-stack';
import { readAll } from '../harness/streams';

describe('verification outcomes, end to end on the dev server against the emulator', () => {
  const stack = useVerificationStack();

  it('succeeds with identity data and attachments stored as references, never in history', async () => {
    const { idv, client } = stack();
    const { handle, nextStep } = await idv.startVerification(
      stack().request({ results: 'data+attachments', redactAfter: 'never' }),
    );
    expect(nextStep).toMatchObject({
      status: 'pending',
      collectionMethod: 'PollResult',
      nextStep: { method: 'None' },
    });
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: 'succeeded', sessionId: nextStep.sessionId });
    expect(outcome.identity?.person).toMatchObject({ givenName: 'Ada', familyName: 'Lovelace' });
    expect(outcome.identity).not.toHaveProperty('attachments');
    const [attachment] = outcome.attachments ?? [];
    expect(attachment).toMatchObject({
      type: 'selfie',
      contentType: 'image/png',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const bytes = (await readAll(
      await idv.readAttachment(nextStep.sessionId, attachment?.id ?? ''),
    )) as Buffer;
    expect(bytes.length).toBe(attachment?.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(attachment?.sha256);
    // At rest it is sealed under the verification's data key.
    expect(readFileSync(fileURLToPath(attachment?.uri ?? '')).includes(bytes.subarray(0, 64))).toBe(false);
    const history = JSON.stringify(await client.workflow.getHandle(handle.workflowId).fetchHistory());
    expect(history).not.toContain(Buffer.from(bytes).toString('base64').slice(0, 40));
    const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
    expect(history).not.toContain('resultsAccessKey');
    expect(view.redacted).toBeNull();
  });

  it('reports every failure errorCode of the service', async () => {
    const { idv } = stack();
    await stack().control('PUT', '/script', { outcome: 'manual' });
    try {
      const failures = sessionErrorCodes.filter((code) => code !== 'Canceled' && code !== 'Expired');
      const started = await Promise.all(
        failures.map(() => idv.startVerification(stack().request({ redactAfter: 'never' }))),
      );
      await Promise.all(
        started.map(({ nextStep }, i) =>
          stack().control('POST', `/sessions/${nextStep.sessionId}/fail`, { errorCode: failures[i] }),
        ),
      );
      const outcomes = await Promise.all(started.map(({ handle }) => handle.result()));
      expect(outcomes.map((o) => [o.status, o.errorCode])).toEqual(failures.map((code) => ['failed', code]));
      expect(outcomes.every((o) => o.identity === undefined)).toBe(true);
    } finally {
      await stack().control('PUT', '/script', { outcome: 'by-input' });
    }
  });

  it('fails with the test provider’s wrong identity code', async () => {
    const request = stack().request({
      redactAfter: 'never',
      providerInput: {
        'trinsic-test-database-lookup': { givenName: 'A', familyName: 'B', identityCode: '000000' },
      },
    });
    const { handle } = await stack().idv.startVerification(request);
    await expect(handle.result()).resolves.toMatchObject({ status: 'failed', errorCode: 'Other' });
  });

  it('reports a user who abandons', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    try {
      const { handle, nextStep } = await stack().idv.startVerification(
        stack().request({ redactAfter: 'never' }),
      );
      await stack().control('POST', `/sessions/${nextStep.sessionId}/abandon`);
      await expect(handle.result()).resolves.toMatchObject({ status: 'failed', errorCode: 'UserAbandoned' });
    } finally {
      await stack().control('PUT', '/script', { outcome: 'by-input' });
    }
  });

  it('cancels the session at the service when the timeout passes', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    try {
      const { handle, nextStep } = await stack().idv.startVerification(
        stack().request({ timeout: '3s', redactAfter: 'never' }),
      );
      await expect(handle.result()).resolves.toMatchObject({ status: 'timed-out', errorCode: 'Canceled' });
      const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
      expect(view.outcome).toEqual({ done: true, success: false, errorCode: 'Canceled' });
    } finally {
      await stack().control('PUT', '/script', { outcome: 'by-input' });
    }
  });

  it('cancels on the caller’s request, at the service too', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    try {
      const { handle, nextStep } = await stack().idv.startVerification(
        stack().request({ redactAfter: 'never' }),
      );
      const progress = await handle.cancel('customer left');
      expect(progress.status).toBe('cancelled');
      await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled', errorCode: 'Canceled' });
      const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
      expect(view.outcome).toMatchObject({ errorCode: 'Canceled' });
      await expect(handle.cancel('again')).rejects.toThrow(/has already ended/);
    } finally {
      await stack().control('PUT', '/script', { outcome: 'by-input' });
    }
  });

  it('redacts at the service and in the blob store after the outcome', async () => {
    const { idv, client } = stack();
    const { handle, nextStep } = await idv.startVerification(
      stack().request({ results: 'data+attachments', redactAfter: 0 }),
    );
    const outcome = await handle.result();
    const report = await client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`).result();
    expect(report).toMatchObject({
      sessionId: nextStep.sessionId,
      redactedAtService: true,
      attachmentsDeleted: 1,
    });
    const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
    expect(view).toMatchObject({ redacted: { by: 'request' }, hasIdentityData: false });
    expect(existsSync(fileURLToPath(outcome.attachments?.[0]?.uri ?? ''))).toBe(false);
    await expect(stack().identity.sessions.getResult(nextStep.sessionId, 'any')).rejects.toMatchObject({
      status: 403,
    });
  });

  it('starts the redaction and closes the creation in the workflow task that learns the outcome, the close a local activity', async () => {
    // Each workflow task in series, and each activity task, waits behind every other
    // verification's under load: the returning user's outcome comes that much sooner.
    const { idv, client } = stack();
    const { handle } = await idv.startVerification(stack().request({ redactAfter: 0 }));
    await handle.result();
    const events = (await client.workflow.getHandle(handle.workflowId).fetchHistory()).events ?? [];
    const redaction = events.find(
      (event) =>
        event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name === 'sessionRedaction',
    );
    const localActivity = (event: (typeof events)[number]) => {
      const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
      return data
        ? (JSON.parse(Buffer.from(data).toString()) as { activity_type?: string }).activity_type
        : undefined;
    };
    const close = events.find((event) => localActivity(event) === 'closeCreation');
    const task = (attributes: { workflowTaskCompletedEventId?: unknown } | null | undefined) =>
      String(attributes?.workflowTaskCompletedEventId);
    expect(close).toBeDefined();
    expect(task(close?.markerRecordedEventAttributes)).toBe(
      task(redaction?.startChildWorkflowExecutionInitiatedEventAttributes),
    );
    expect(
      events.filter(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'closeCreation',
      ),
    ).toEqual([]);
  });

  /** The activity types a verification's history scheduled, in order. */
  const scheduled = async (workflowId: string) =>
    ((await stack().client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).flatMap((event) => {
      const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
      return name ? [name] : [];
    });
  const resultCalls = async (sessionId: string) =>
    ((await stack().control('GET', '/counters')).bySession as Record<string, Record<string, number>>)[
      sessionId
    ]?.GetSessionResult ?? 0;

  it('fetches the identity data along with the poll that finds the success, with no results fetch of its own', async () => {
    // One activity and one workflow task fewer between the user finishing and the outcome.
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ results: 'data', redactAfter: 'never' }),
    );
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: 'succeeded' });
    expect(outcome.identity?.person).toMatchObject({ givenName: 'Ada', familyName: 'Lovelace' });
    expect(await scheduled(handle.workflowId)).not.toContain('fetchResults');
    expect(await resultCalls(nextStep.sessionId)).toBe(1);
  });

  it("fetches the identity data along with a return's check", async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    try {
      // The poll's first interval is far off: only the return's check can find the success.
      const { handle, nextStep } = await stack().idv.startVerification(
        stack().request({
          results: 'data',
          redactAfter: 'never',
          polling: { initialMs: 60_000, maxMs: 300_000 },
        }),
      );
      await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
      await handle.redirectCaptured();
      const outcome = await handle.result();
      expect(outcome.identity?.person).toMatchObject({ givenName: 'Ada' });
      const activities = await scheduled(handle.workflowId);
      expect(activities).toContain('checkSession');
      expect(activities).not.toContain('fetchResults');
    } finally {
      await stack().control('PUT', '/script', { outcome: 'by-input' });
    }
  });

  it('fetches the results on their own when the fetch along fails', async () => {
    await stack().control('PUT', '/faults', { operation: 'GetSessionResult', errorRate: 1, count: 1 });
    try {
      const { handle, nextStep } = await stack().idv.startVerification(
        stack().request({ results: 'data', redactAfter: 'never' }),
      );
      const outcome = await handle.result();
      expect(outcome.identity?.person).toMatchObject({ givenName: 'Ada' });
      expect(await scheduled(handle.workflowId)).toContain('fetchResults');
      expect(await resultCalls(nextStep.sessionId)).toBe(2);
    } finally {
      await stack().control('DELETE', '/faults');
    }
  });
});
