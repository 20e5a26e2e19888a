import { OnboardingClient } from '../../agent-platform/client/onboarding-client';
import { type OnboardingVerification, onboardingReference } from '../../agent-platform/domain/onboarding';
import { agentEventSignal } from '../../agent-platform/shared/messages';
import { purgeRecords } from '../../verification/client/records';
import { reserveReference } from '../../verification/client/reserve-reference';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { eventually } from '../harness/eventually';
import { deleteAsRetentionWould } from '../harness/retention';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';

// A reference is used once for the life of its record, as while Temporal keeps the workflow:
// past the namespace's retention, a start is refused, or takes over a start that never ran.

const TENANT = 'tenant-r';

describe('verification records once Temporal no longer keeps the workflow', () => {
  const stack = useVerificationStack({ agentKeys: { [TENANT]: 'agent_key_tenant_r_0123456789' } });

  beforeEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'manual' });
  });
  afterEach(async () => {
    await stack().control('PUT', '/script', { outcome: 'by-input' });
  });

  it('refuses a second start of a reference whose verification ran, once its terminated workflow is gone', async () => {
    const request = stack().request({ redactAfter: 'never' });
    const { handle } = await stack().idv.startVerification(request);
    const first = await handle.record();
    // An operator terminates it (no clean-up runs, so no ending is recorded); retention follows.
    await handle.workflow.terminate('stuck');
    // While Temporal keeps the closed workflow, a new start is refused (REJECT_DUPLICATE).
    await expect(stack().idv.startVerification(request)).rejects.toMatchObject({
      name: 'VerificationEndedError',
    });
    await deleteAsRetentionWould(stack().client, handle.workflowId);
    const again = await stack()
      .idv.startVerification(request)
      .catch((error: unknown) => error as Error);
    if (!(again instanceof Error)) await again.handle.cancel('test clean-up').catch(() => undefined);
    expect(again instanceof Error ? again.name : 'started again').toBe('VerificationEndedError');
    // The record still names the first start's key (the redaction by reference destroys it).
    expect((await handle.record())?.dataKeyId).toBe(first?.dataKeyId);
  }, 180_000);

  /** A client that crashed between keeping the reference and starting the workflow. */
  async function crashedStart(request: ReturnType<ReturnType<typeof stack>['request']>) {
    const crashed = await stack().prepare(request);
    await stack().store.records.reserve({
      reference: request.reference,
      verificationProfileId: crashed.verificationProfileId,
      provider: crashed.provider,
      dataKeyId: crashed.dataKeyId,
      status: 'started',
      startedAt: new Date().toISOString(),
    });
    return crashed;
  }

  /** Reserves `request`'s reference for `taker`'s start through `records` (a store with a race put in). */
  async function reserveThrough(
    records: Parameters<typeof reserveReference>[0]['records'],
    request: ReturnType<ReturnType<typeof stack>['request']>,
    taker: Awaited<ReturnType<ReturnType<typeof stack>['prepare']>>,
  ) {
    return await reserveReference(
      { records, vault: stack().store.vault, dataKeys: stack().dataKeys },
      {
        reference: request.reference,
        verificationProfileId: taker.verificationProfileId,
        provider: taker.provider,
        dataKeyId: taker.dataKeyId,
        status: 'started',
        startedAt: new Date().toISOString(),
      },
      { workflowId: verificationWorkflowId(request.reference), client: stack().client },
    );
  }

  it('takes over a start that never ran (no workflow, nothing created), and destroys its key', async () => {
    const request = stack().request({ redactAfter: 'never' });
    const crashed = await crashedStart(request);
    const { handle, nextStep } = await stack().idv.startVerification(request);
    expect(nextStep.sessionId).toBeDefined();
    expect((await handle.record())?.dataKeyId).toBe(nextStep.dataKeyId);
    expect(await stack().store.dataKeys.get(crashed.dataKeyId)).toMatchObject({ state: 'destroyed' });
    await handle.cancel('test clean-up');
  }, 60_000);

  it('refuses a start taken over after the erasure of a start that never ran: the erasure is final', async () => {
    const request = stack().request({ redactAfter: 'never' });
    const crashed = await crashedStart(request);
    // The person asks for erasure before the caller tries the start again: its key is destroyed
    // and the erasure recorded (no session to redact).
    await expect(stack().idv.redactVerification(request.reference)).rejects.toThrow(/no session to redact/);
    const sessions = (await stack().control('GET', '/counters')).byOperation as Record<string, number>;
    const again = await stack()
      .idv.startVerification(request)
      .catch((error: unknown) => error as Error);
    if (!(again instanceof Error)) await again.handle.cancel('test clean-up').catch(() => undefined);
    expect(again instanceof Error ? again.message : 'started again').toMatch(/was erased/);
    const after = (await stack().control('GET', '/counters')).byOperation as Record<string, number>;
    expect(after.CreateDirectProviderSession ?? 0).toBe(sessions.CreateDirectProviderSession ?? 0);
    const record = await stack().store.records.get(request.reference);
    expect(record?.dataKeyId).toBe(crashed.dataKeyId);
    expect(record?.redactedAt).toBeDefined();
  }, 60_000);

  it.each([
    ['an erasure marked', { redactedAt: expect.any(String) }],
    ['an ending recorded', { status: 'failed' }],
  ])('refuses a take-over when %s between the store’s check and its write', async (_what, found) => {
    const request = stack().request({ redactAfter: 'never' });
    const crashed = await crashedStart(request);
    const taker = await stack().prepare(request);
    const { records } = stack().store;
    // A store that checks, then writes (the file store): the erasure or the ending (of the start
    // that ran after all) read the record before the take-over wrote its key, and lands before the
    // take-over answers.
    const closeMeanwhile = (reference: string) =>
      'redactedAt' in found
        ? records.redacted(reference, new Date().toISOString())
        : records.ended(reference, {
            verificationProfileId: crashed.verificationProfileId,
            provider: crashed.provider,
            dataKeyId: crashed.dataKeyId,
            startedAt: new Date().toISOString(),
            status: 'failed',
            endedAt: new Date().toISOString(),
          });
    const racing = {
      reserve: records.reserve.bind(records),
      get: records.get.bind(records),
      restarted: async (reference: string, start: { dataKeyId: string; startedAt: string }) => {
        const taken = await records.restarted(reference, start);
        await closeMeanwhile(reference);
        return taken;
      },
    };
    const reservation = await reserveThrough(racing, request, taker);
    expect(reservation).toMatchObject({ kind: 'used', record: found });
  });

  it('reserves again when its record was purged and started anew between a take-over and its re-read', async () => {
    const request = stack().request({ redactAfter: 'never' });
    const crashed = await crashedStart(request);
    const taker = await stack().prepare(request);
    const { records } = stack().store;
    let raced = false;
    const racing = {
      reserve: records.reserve.bind(records),
      get: records.get.bind(records),
      restarted: async (reference: string, start: { dataKeyId: string; startedAt: string }) => {
        const taken = await records.restarted(reference, start);
        if (raced) return taken;
        raced = true;
        // Erased and purged meanwhile, then the reference used again by another start.
        await records.redacted(reference, '2026-01-01T00:00:00.000Z');
        await records.purge('2026-01-02T00:00:00.000Z');
        await records.reserve({
          reference,
          verificationProfileId: crashed.verificationProfileId,
          provider: crashed.provider,
          dataKeyId: 'dk-started-anew',
          status: 'started',
          startedAt: new Date().toISOString(),
        });
        return taken;
      },
    };
    const reservation = await reserveThrough(racing, request, taker);
    // Taken over again, from the start made anew: the record names this start's key.
    expect(reservation).toEqual({ kind: 'restarted', previousDataKeyId: 'dk-started-anew' });
    expect(await records.get(request.reference)).toMatchObject({
      dataKeyId: taker.dataKeyId,
      supersededKeyIds: ['dk-started-anew'],
    });
  });

  it('gives up with a typed error when its record keeps being purged and started anew, and destroys the key it made', async () => {
    const request = stack().request({ redactAfter: 'never' });
    const crashed = await crashedStart(request);
    const { records, dataKeys } = stack().store;
    // Every take-over's re-read finds the record purged and made anew by another start.
    let anew = 0;
    const racing = {
      ...records,
      reserve: records.reserve.bind(records),
      get: records.get.bind(records),
      restarted: async (reference: string, start: { dataKeyId: string; startedAt: string }) => {
        const taken = await records.restarted(reference, start);
        await records.redacted(reference, '2026-01-01T00:00:00.000Z');
        await records.purge('2026-01-02T00:00:00.000Z');
        anew += 1;
        await records.reserve({
          reference,
          verificationProfileId: crashed.verificationProfileId,
          provider: crashed.provider,
          dataKeyId: `dk-started-anew-${anew}`,
          status: 'started',
          startedAt: new Date().toISOString(),
        });
        return taken;
      },
    };
    const made: string[] = [];
    const watchedKeys = {
      ...dataKeys,
      create: async (keyId: string, wrapped: string) => {
        made.push(keyId);
        return await dataKeys.create(keyId, wrapped);
      },
      get: dataKeys.get.bind(dataKeys),
      destroy: dataKeys.destroy.bind(dataKeys),
      rewrap: dataKeys.rewrap.bind(dataKeys),
      wrappedElsewhere: dataKeys.wrappedElsewhere.bind(dataKeys),
    };
    const idv = harnessIdvClient(
      stack().client,
      { ...stack().store, records: racing, dataKeys: watchedKeys },
      stack().taskQueue,
    );
    await expect(idv.startVerification(request)).rejects.toMatchObject({
      name: 'RecordContendedError',
      message: expect.stringContaining(request.reference) as unknown,
    });
    expect(anew).toBe(3);
    // The key made for the start sealed nothing kept, and no record names it: destroyed.
    expect(made).toHaveLength(1);
    expect(await dataKeys.get(made[0] as string)).toMatchObject({ state: 'destroyed' });
  });

  it("never verifies an onboarding's connection twice, even once the first verification's workflow is gone", async () => {
    const onboardings = new OnboardingClient({ client: stack().client, taskQueue: stack().taskQueue });
    const connectionId = `conn-retention-${process.pid}-${Date.now()}`;
    const reference = onboardingReference(TENANT, connectionId);
    const verification: OnboardingVerification = {
      verificationProfileId: stack().profileId,
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
      redactAfter: 'never',
      polling: { initialMs: 200, maxMs: 500 },
    };
    const newConnection = (objectId: string) => ({
      tenant: TENANT,
      connectionId,
      messageType: 'new_connection' as const,
      objectId,
      receivedAt: new Date().toISOString(),
    });
    const child = () => stack().client.workflow.getHandle(`idv-${reference}`);
    const sessionOf = () =>
      eventually(async () => {
        const progress = (await child()
          .query('progress')
          .catch(() => undefined)) as { sessionId?: string } | undefined;
        return progress?.sessionId;
      }, 'the verification’s session');

    const started = await onboardings.start({ tenant: TENANT, connectionId, verification });
    await stack()
      .client.workflow.getHandle(started.workflowId)
      .signal(agentEventSignal, newConnection('hello'));
    const firstSession = await sessionOf();
    await stack().control('POST', `/sessions/${firstSession}/complete`);
    await onboardings.result(TENANT, connectionId);
    expect(await stack().idv.getVerification(reference).record()).toMatchObject({
      status: 'succeeded',
      sessionId: firstSession,
    });

    // Retention removes both closed workflows; the record stays, as the business keeps it.
    await deleteAsRetentionWould(stack().client, `idv-${reference}`);
    await deleteAsRetentionWould(stack().client, started.workflowId);

    // Started again by hand (or by a redelivered new_connection): a connection is verified once.
    const again = await onboardings.start({ tenant: TENANT, connectionId, verification });
    await stack()
      .client.workflow.getHandle(again.workflowId)
      .signal(agentEventSignal, newConnection('again'));
    const what = await eventually(async () => {
      const second = await child()
        .describe()
        .catch(() => undefined);
      if (second) return 'a second verification' as const;
      const onboarding = await stack().client.workflow.getHandle(again.workflowId).describe();
      return onboarding.status.name === 'FAILED' ? ('refused' as const) : undefined;
    }, 'the second onboarding to verify or be refused');
    if (what === 'a second verification') await child().cancel();
    expect(what).toBe('refused');
  }, 240_000);

  it('says, in result() from the record, that the outcome comes from the record (no identity)', async () => {
    const request = stack().request({ results: 'data', redactAfter: 'never' });
    const { handle, nextStep } = await stack().idv.startVerification(request);
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    const live = await handle.result({ confirmDelivery: false });
    expect(live.identity).toBeDefined();
    await deleteAsRetentionWould(stack().client, handle.workflowId);
    // Told apart from a verification that fetched no identity (`results: none`).
    expect(await stack().idv.getVerification(request.reference).result()).toEqual({
      status: 'succeeded',
      sessionId: nextStep.sessionId,
      fromRecord: true,
    });
  }, 180_000);

  /** A verification that succeeded, was erased, and that Temporal no longer keeps. */
  async function erasedAndGone() {
    const request = stack().request({ redactAfter: 'never' });
    const { handle, nextStep } = await stack().idv.startVerification(request);
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    await handle.result({ confirmDelivery: false });
    await stack().idv.redactVerification(request.reference);
    await deleteAsRetentionWould(stack().client, handle.workflowId);
    await eventually(
      async () => ((await handle.record())?.redactedAt ? true : undefined),
      'the erasure recorded',
    );
    const erasedAt = Date.parse((await handle.record())?.redactedAt ?? '');
    return { request, handle, nextStep, erasedAt };
  }

  it('keeps a purge cut short retriable: the reference is used again once a later purge ends', async () => {
    const { request, nextStep, erasedAt } = await erasedAndGone();
    // The purge stops (a crash, the store away) while forgetting the reference's closed creation.
    const { vault } = stack().store;
    const failing = {
      ...stack().store,
      vault: Object.assign(Object.create(vault) as typeof vault, {
        forgetCreation: () => Promise.reject(new Error('the store went away')),
      }),
    };
    await expect(purgeRecords(failing, new Date(erasedAt + 1))).rejects.toThrow(/went away/);
    // The record still stands for the reference until a purge ends: a later one takes it.
    expect(await purgeRecords(stack().store, new Date(erasedAt + 1))).toContain(request.reference);
    const again = await stack().idv.startVerification(request);
    expect(again.nextStep.sessionId).not.toBe(nextStep.sessionId);
    await again.handle.cancel('test clean-up');
  }, 180_000);

  it('lets a purged reference be used again', async () => {
    const { request, handle, nextStep, erasedAt } = await erasedAndGone();
    // `idv records purge --older-than D`, D passed since the erasure: the record goes.
    expect(await purgeRecords(stack().store, new Date(erasedAt + 1))).toContain(request.reference);
    expect(await handle.record()).toBeUndefined();
    const again = await stack().idv.startVerification(request);
    expect(again.nextStep.sessionId).not.toBe(nextStep.sessionId);
    await again.handle.cancel('test clean-up');
  }, 180_000);
});
