import { VerificationNotStartedError } from '../../verification/client/idv-client';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

// Every ending of a verification is an outcome with a documented status and an errorCode, never a
// failed workflow: a service that refuses for good (401, 403, 400) or answers a shape it cannot
// read. The session is still ended at the service and redacted.
describe('refusals and unreadable answers end with an outcome', () => {
  const stack = useVerificationStack();
  const fast = { polling: { initialMs: 200, maxMs: 400 } };
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input', latencyMs: 2_000 });
  });

  it.each([
    ['401', { errorRate: 1, errorStatus: 401 }, 'ServiceRefused'],
    ['403', { errorRate: 1, errorStatus: 403 }, 'ServiceRefused'],
    ['a 200 of the wrong shape', { mergeBody: { session: { done: 'yes' } } }, 'UnreadableAnswer'],
  ])(
    'ends failed when GetSession answers %s, the session ended and redacted',
    async (_name, fault, code) => {
      await stack().control('PUT', '/script', { outcome: 'manual' });
      const { handle, nextStep } = await stack().idv.startVerification(
        stack().request({ redactAfter: 0, ...fast }),
      );
      await stack().control('PUT', '/faults', { operation: 'GetSession', ...fault });
      await expect(handle.result()).resolves.toEqual({
        status: 'failed',
        errorCode: code,
        sessionId: nextStep.sessionId,
      });
      await stack().control('DELETE', '/faults');
      const session = await eventually(() => {
        const found = stack().emulator.store.sessions.get(nextStep.sessionId);
        return Promise.resolve(found?.outcome.done && found.redacted ? found : undefined);
      }, 'the session ended and redacted');
      expect(session.outcome).toMatchObject({ errorCode: 'Canceled' });
    },
    60_000,
  );

  it('ends failed when the service refuses to create the session, and tells the start why', async () => {
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      errorRate: 1,
      errorStatus: 403,
    });
    const request = stack().request({ redactAfter: 0 });
    await expect(stack().idv.startVerification(request)).rejects.toBeInstanceOf(VerificationNotStartedError);
    await expect(stack().idv.getVerification(request.reference).result()).resolves.toEqual({
      status: 'failed',
      errorCode: 'ServiceRefused',
    });
  }, 60_000);
});
