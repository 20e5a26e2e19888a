import { InvalidVerificationRequestError } from '../../verification/client/parse-request';
import { parseVerificationRequest } from '../../verification/client/parse-request';
import { onboardingFixture } from '../fixtures/parent-workflows';
import { eventually } from '../harness/eventually';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';

describe('IdvClient', () => {
  const stack = useVerificationStack();

  it('rejects an invalid request naming each field, before anything starts', async () => {
    const error: unknown = await stack()
      .idv.startVerification({
        ...stack().request(),
        reference: 'ada@example.com',
        verificationProfileId: 'nope',
        capabilities: [],
        timeout: 'soon',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidVerificationRequestError);
    expect(Object.keys((error as InvalidVerificationRequestError).errors).sort()).toEqual([
      'capabilities',
      'reference',
      'timeout',
      'verificationProfileId',
    ]);
    expect((error as Error).message).toContain('timeout must be a duration');
  });

  it('names unknown fields of a request', () => {
    const request = { ...stack().request(), email: 'ada@example.com' };
    expect(() => parseVerificationRequest(request)).toThrow(
      'invalid verification request: (request) has unknown fields: email',
    );
  });

  it('resolves durations and defaults', () => {
    const input = parseVerificationRequest({ ...stack().request(), timeout: '30m', redactAfter: '30 days' });
    expect(input).toMatchObject({ timeout: 1_800_000, redactAfter: 2_592_000_000, results: 'data' });
    expect(parseVerificationRequest(stack().request())).toMatchObject({ timeout: 3_600_000, redactAfter: 0 });
  });

  it('fails the start with the service’s validation error when the session cannot be created', async () => {
    const request = stack().request({
      provider: 'yoti',
      capabilities: ['LaunchBrowser'],
      providerInput: undefined,
    });
    // The service's detail stays out of the message (a service may echo the person's input there).
    await expect(stack().idv.startVerification(request)).rejects.toThrow(
      /could not start: CreateDirectProviderSession failed 400: invalid request/,
    );
  });

  it('sets search attributes without personal data and lists verifications by status', async () => {
    const { idv } = stack();
    const { handle, nextStep } = await idv.startVerification(stack().request({ redactAfter: 'never' }));
    await handle.result();
    const found = await eventually(async () => {
      const list = await idv.listVerifications({
        status: 'succeeded',
        verificationProfileId: stack().profileId,
      });
      return list.find((v) => v.workflowId === handle.workflowId);
    }, 'the verification in the visibility store');
    expect(found).toMatchObject({
      reference: handle.reference,
      status: 'succeeded',
      sessionId: nextStep.sessionId,
      provider: 'trinsic-test-database-lookup',
    });
    const description = await stack().client.workflow.getHandle(handle.workflowId).describe();
    expect(JSON.stringify(description.searchAttributes)).not.toMatch(/Ada|Lovelace|123456/);
  });

  it('finds a verification again by its reference', async () => {
    const { handle } = await stack().idv.startVerification(stack().request({ redactAfter: 'never' }));
    const again = stack().idv.getVerification(handle.reference);
    await expect(again.result()).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('two starts of one reference at once join one verification, and its key stays live', async () => {
    const { store } = stack();
    const request = stack().request({ redactAfter: 'never' });
    // The first start's record is written, then it waits until the second has taken the
    // reference over (the first not yet at Temporal); the second waits until the first runs.
    let takenOver!: () => void;
    const tookOver = new Promise<void>((resolve) => (takenOver = resolve));
    let firstReserve = true;
    const running = () =>
      eventually(
        () =>
          stack()
            .client.workflow.getHandle(`idv-${request.reference}`)
            .describe()
            .then(
              () => true,
              () => undefined,
            ),
        'the first start running',
      );
    const records = new Proxy(store.records, {
      get(target, name) {
        if (name === 'reserve')
          return async (record: Parameters<typeof target.reserve>[0]) => {
            const reserved = await target.reserve(record);
            if (firstReserve) {
              firstReserve = false;
              await tookOver;
            }
            return reserved;
          };
        if (name === 'restarted')
          return async (...args: Parameters<typeof target.restarted>) => {
            const taken = await target.restarted(...args);
            takenOver();
            await running();
            return taken;
          };
        const value = Reflect.get(target, name) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const racing = new Proxy(store, {
      get: (target, name) => (name === 'records' ? records : (Reflect.get(target, name) as unknown)),
    });
    const idv = harnessIdvClient(stack().client, racing, stack().taskQueue);
    const [first, second] = await Promise.all([
      idv.startVerification(request),
      idv.startVerification(request),
    ]);
    expect(second.nextStep.sessionId).toBe(first.nextStep.sessionId);
    const { dataKeyId } = await first.handle.progress();
    expect((await store.dataKeys.get(dataKeyId))?.state).not.toBe('destroyed');
    await expect(first.handle.result()).resolves.toMatchObject({ status: 'succeeded' });
  }, 30_000);

  it('a prepared input taken over by a second prepare still runs, and the redaction destroys both keys', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    const request = stack().request({ results: 'data', redactAfter: 0 });
    // A business handler retried (its first answer timed out): the first parent starts the
    // child with the first input; the retry's parent is refused as a duplicate.
    const first = await stack().idv.prepareInput(request);
    const second = await stack().idv.prepareInput(request);
    expect(second.dataKeyId).not.toBe(first.dataKeyId);
    expect((await stack().store.dataKeys.get(first.dataKeyId))?.state).toBe('live');
    const result = await stack().client.workflow.execute(onboardingFixture, {
      taskQueue: stack().taskQueue,
      workflowId: `onboarding-${first.reference}`,
      args: [first],
    });
    expect(result).toMatchObject({ verified: true, outcome: { status: 'succeeded' } });
    const handle = stack().idv.getVerification(first.reference);
    expect((await handle.result({ confirmDelivery: false })).identity).toBeDefined();
    await handle.confirmDelivery((await handle.progress()).sessionId as string);
    const destroyed = async (keyId: string) =>
      (await stack().store.dataKeys.get(keyId))?.state === 'destroyed' ? true : undefined;
    await eventually(
      () => destroyed(first.dataKeyId),
      "the verification's own key destroyed by its redaction",
    );
    await eventually(() => destroyed(second.dataKeyId), 'the key of the prepare it lost to destroyed too');
  }, 30_000);

  it('runs a verification as a child of a business workflow', async () => {
    const input = await stack().idv.prepareInput(stack().request({ redactAfter: 'never' }));
    const result = await stack().client.workflow.execute(onboardingFixture, {
      taskQueue: stack().taskQueue,
      workflowId: `onboarding-${input.reference}`,
      args: [input],
    });
    expect(result).toMatchObject({ verified: true, outcome: { status: 'succeeded' } });
    const child = await stack().client.workflow.getHandle(`idv-${input.reference}`).describe();
    expect(child.status.name).toBe('COMPLETED');
  });
});
