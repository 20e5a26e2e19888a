import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

// Paths an independent review of the workflow found still open: a cancel or a redaction the
// service refuses, a native challenge nobody answers, a refresh time in the past.
describe('verification paths found in review, end to end', () => {
  const stack = useVerificationStack();
  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 300 });
  });
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input', stepTtlSeconds: 300 });
  });

  const fast = { polling: { initialMs: 200, maxMs: 500 } };
  const counted = async (sessionId: string, operation: string) => {
    const counters = await stack().control('GET', '/counters');
    return (counters.bySession as Record<string, Record<string, number>>)[sessionId]?.[operation] ?? 0;
  };

  it('hands a session the service refused to cancel to a child that ends it', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', ...fast }),
    );
    await stack().control('PUT', '/faults', {
      operation: 'CancelSession',
      errorRate: 1,
      errorStatus: 403,
      count: 1,
    });
    await handle.cancel('customer left');
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    await stack().client.workflow.getHandle(`idv-end-${nextStep.sessionId}`).result();
    const view = await stack().control('GET', `/sessions/${nextStep.sessionId}`);
    expect(view).toMatchObject({ outcome: { done: true, errorCode: 'Canceled' }, redacted: null });
  }, 30_000);

  it('deletes the local data of a session even while the service refuses its redaction', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    await stack().control('PUT', '/faults', { operation: 'RedactSession', errorRate: 1, errorStatus: 401 });
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ results: 'data+attachments', redactAfter: '0s', ...fast }),
    );
    const outcome = await handle.result();
    expect(outcome.attachments?.length).toBeGreaterThan(0);
    const redaction = stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`);
    const files = () => readdir(join(stack().dataDir, 'blobs', nextStep.sessionId)).catch(() => []);
    await eventually(async () => ((await files()).length === 0 ? true : undefined), 'the local data deleted');
    // The refused redaction is tried again later, not given up: the workflow still runs.
    expect((await redaction.describe()).status.name).toBe('RUNNING');
    await redaction.terminate('test over');
  }, 30_000);

  it('notices a native challenge session the user abandoned, long before the deadline', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({
        provider: 'mdl-digital-credentials',
        capabilities: ['NativeChallenge'],
        providerInput: undefined,
        results: 'none',
        redactAfter: 'never',
        timeout: '1h',
        ...fast,
      }),
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/abandon`);
    await expect(handle.result()).resolves.toMatchObject({ status: 'failed', errorCode: 'UserAbandoned' });
  }, 30_000);

  it('does not refresh in a loop when the service gives a refresh time in the past', async () => {
    await stack().control('PUT', '/faults', {
      operation: 'RefreshStepContent',
      mergeBody: { nextStep: { refresh: { refreshAfter: '2000-01-01T00:00:00Z' } } },
    });
    await stack().control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 1 });
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({
        provider: 'yoti',
        capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
        providerInput: undefined,
        redactAfter: 'never',
        ...fast,
      }),
    );
    await eventually(
      async () => ((await counted(nextStep.sessionId, 'RefreshStepContent')) >= 2 ? true : undefined),
      'two refreshes',
    );
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await handle.redirectCaptured();
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    // Two refreshes are at least one minimum gap apart; a loop would have made hundreds.
    expect(await counted(nextStep.sessionId, 'RefreshStepContent')).toBeLessThanOrEqual(5);
  }, 30_000);
});
