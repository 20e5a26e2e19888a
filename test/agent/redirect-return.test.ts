import { request } from 'undici';
import { useVerificationStack } from '../harness/verification-stack';

describe('receiver: the user returns from a redirect flow', () => {
  const stack = useVerificationStack({}, { receiver: true });
  const getSessionCalls = async (sessionId: string) => {
    const counters = await stack().control('GET', '/counters');
    return (counters.bySession as Record<string, Record<string, number>>)[sessionId]?.GetSession ?? 0;
  };

  it('tells the verification at once and sends the browser on to the final URL, dropping the access key', async () => {
    const draft = stack().request();
    const returnUrl = `${stack().receiver?.url}/return/${draft.reference}`;
    // No poll for a minute: only the return can end this verification in time.
    const { handle, nextStep } = await stack().idv.startVerification({
      ...draft,
      redirectUrl: returnUrl,
      finalUrl: 'https://shop.example/thanks?order=42',
      polling: { initialMs: 60_000, maxMs: 60_000 },
      redactAfter: 'never',
    });
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    const before = await getSessionCalls(nextStep.sessionId);
    const response = await request(`${returnUrl}?resultsAccessKey=secret-access-key`);
    await response.body.dump();
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('https://shop.example/thanks?order=42');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect((await getSessionCalls(nextStep.sessionId)) - before).toBe(1);
  }, 30_000);

  it('thanks the user when the verification has no final URL', async () => {
    const draft = stack().request({ redactAfter: 'never' });
    const { handle } = await stack().idv.startVerification(draft);
    const response = await request(`${stack().receiver?.url}/return/${draft.reference}`);
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toMatch(/you can close this window/);
    await handle.cancel('done');
  });

  it('answers 404 for a reference it does not know, that is not a reference, or names another workflow', async () => {
    await stack().webhooks.register('tenant-1', { url: 'https://hooks.example/r' });
    for (const reference of ['never-started-reference', 'user%40example.com', 'agent-webhooks-tenant-1']) {
      const response = await request(`${stack().receiver?.url}/return/${reference}`);
      await response.body.dump();
      expect(response.statusCode).toBe(404);
    }
  });
});
