import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

// A CancelSession that keeps failing (a 500 that lasts, or a 409 as "already finished" may be
// answered) must not keep the person's data at the service: a session known to be done is not
// cancelled, and the redaction goes on whatever the cancel does.
describe('redaction whatever CancelSession answers', () => {
  const stack = useVerificationStack();
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
  });

  it.each([
    ['500 forever', { errorRate: 1, errorStatus: 500 }],
    ['409 forever for finished sessions', { errorRate: 1, errorStatus: 409, whenSessionDone: true }],
  ])(
    'redacts a succeeded session while CancelSession answers %s',
    async (_name, fault) => {
      await stack().control('PUT', '/faults', { operation: 'CancelSession', ...fault });
      const request = stack().request({ redactAfter: 0, results: 'data' });
      const { handle, nextStep } = await stack().idv.startVerification(request);
      const outcome = await handle.result();
      expect(outcome).toMatchObject({ status: 'succeeded', identity: expect.any(Object) });
      const session = await eventually(
        () => {
          const found = stack().emulator.store.sessions.get(nextStep.sessionId);
          return Promise.resolve(found?.redacted && found.identity === undefined ? found : undefined);
        },
        'the session to be redacted at the service',
        60_000,
      );
      expect(session.redacted?.by).toBe('request');
      await expect(stack().store.vault.accessKey(nextStep.sessionId)).rejects.toThrow();
    },
    90_000,
  );
});
