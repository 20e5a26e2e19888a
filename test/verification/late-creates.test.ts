import { type SessionRecord } from '../../emulator/state/model';
import { eventually } from '../harness/eventually';
import { useVerificationStack } from '../harness/verification-stack';

// The service may carry out a create long after its client stopped waiting: after the
// verification's deadline cut the attempt short, or after the client's answer timeout while a
// retry succeeds. Whenever such a session lands, it is swept: not live, no identity data, and no
// results access key left in the vault.
function lateCreates(options: { answerTimeoutMs?: number }) {
  const stack = useVerificationStack({}, options);
  afterEach(async () => {
    await stack().control('DELETE', '/faults');
    await stack().control('PUT', '/script', { outcome: 'by-input', latencyMs: 2_000 });
  });
  const sessionsSince = (before: Set<string>): SessionRecord[] =>
    [...stack().emulator.store.sessions.values()].filter((session) => !before.has(session.id));
  /** Every session made since `before` is ended at the service, holds no identity and has no key here. */
  const nothingLeft = async (before: Set<string>, expected: number) =>
    await eventually(
      async () => {
        const made = sessionsSince(before);
        if (made.length < expected) return undefined;
        if (made.some((session) => !session.outcome.done || session.identity !== undefined)) return undefined;
        for (const session of made) {
          const key = await stack()
            .store.vault.accessKey(session.id)
            .catch(() => undefined);
          if (key !== undefined) return undefined;
        }
        return made;
      },
      'every session made to be ended, without identity data or a key',
      90_000,
    );
  return { stack, sessionsSince, nothingLeft };
}

describe('a session created after the deadline cut its create short', () => {
  const { stack, nothingLeft } = lateCreates({});

  it('sweeps a session that lands 8 s after the deadline cut its create short', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      lateRate: 1,
      lateMs: 8_000,
      count: 1,
    });
    const before = new Set(stack().emulator.store.sessions.keys());
    const request = stack().request({ timeout: '3s', redactAfter: 'never' });
    const started = await stack()
      .idv.startVerification(request)
      .catch((error: unknown) => error);
    expect(started).toBeInstanceOf(Error);
    await expect(stack().idv.getVerification(request.reference).result()).resolves.toMatchObject({
      status: 'timed-out',
    });
    const made = await nothingLeft(before, 1);
    expect(made).toHaveLength(1);
    expect(made[0]?.outcome).toMatchObject({ done: true, errorCode: 'Canceled' });
  }, 120_000);
});

describe('a session created after the answer timeout while the retry succeeded', () => {
  // A 1 s answer timeout stands in for the client's 30 s one.
  const { stack, sessionsSince } = lateCreates({ answerTimeoutMs: 1_000 });

  it('sweeps a session answered after the answer timeout while the retry succeeded', async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
    await stack().control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      lateRate: 1,
      lateMs: 6_000,
      count: 1,
    });
    const before = new Set(stack().emulator.store.sessions.keys());
    const request = stack().request({ redactAfter: 'never' });
    const { handle, nextStep } = await stack().idv.startVerification(request);
    // The late one lands after the retry's session: the verification keeps the retry's.
    const made = await eventually(
      () => Promise.resolve(sessionsSince(before).length === 2 ? sessionsSince(before) : undefined),
      'the late create to land',
    );
    const orphan = made.find((session) => session.id !== nextStep.sessionId);
    await eventually(
      () => Promise.resolve(orphan?.outcome.done && orphan.identity === undefined ? true : undefined),
      'the late session to be swept',
      90_000,
    );
    await expect(stack().store.vault.accessKey(orphan?.id ?? '')).rejects.toThrow();
    // The verification's own session is untouched by the sweep.
    expect(stack().emulator.store.sessions.get(nextStep.sessionId)?.outcome.done).toBe(false);
    await handle.cancel('done with the test');
    expect(stack().emulator.store.sessions.get(nextStep.sessionId)?.outcome.done).toBe(true);
  }, 120_000);
});

describe('a create carried out and answered with a status the interface leaves open', () => {
  const { stack, nothingLeft } = lateCreates({});

  // The interface defines 400, 401, 403 and 500: any other answer (a gateway's, a conflict) does
  // not prove the service created nothing, so the session it may have made is swept.
  it.each([404, 409, 429])(
    'sweeps the session of a create answered %i after it was carried out',
    async (status) => {
      await stack().control('PUT', '/script', { outcome: 'manual' });
      await stack().control('PUT', '/faults', {
        operation: 'CreateDirectProviderSession',
        errorAfterRate: 1,
        errorStatus: status,
        count: 1,
      });
      const before = new Set(stack().emulator.store.sessions.keys());
      const request = stack().request({ redactAfter: 0 });
      const started = await stack()
        .idv.startVerification(request)
        .catch(() => undefined);
      // Retried (a second session, kept, ended and redacted with the verification) or failed:
      // either way the first one is nobody's.
      if (started) await started.handle.cancel('done with the test');
      await stack().idv.getVerification(request.reference).result();
      await nothingLeft(before, started ? 2 : 1);
    },
    120_000,
  );
});
