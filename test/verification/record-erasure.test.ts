import { recordErasure } from '../../verification/client/records';
import { useLocalDataKeys } from '../harness/local-data-keys';

// Recording a reference's erasure destroys every key its record names: the starts it took over,
// and the one it names now, which an ending not recorded yet (its close handed to a workflow of
// its own) would have moved aside.
describe("recording a reference's erasure", () => {
  const local = useLocalDataKeys('record-erasure');

  /** A start's record for `reference` under `dataKeyId`. */
  const reserved = (reference: string, dataKeyId: string) =>
    local().store.records.reserve({
      reference,
      verificationProfileId: '1b0f7c2e-8d3a-4b6e-9f1a-2c3d4e5f6a7b',
      provider: 'yoti',
      dataKeyId,
      status: 'started',
      startedAt: new Date().toISOString(),
    });

  it('destroys the keys of every start under the reference, before its ending is recorded too', async () => {
    const first = await local().dataKeys.create();
    const taker = await local().dataKeys.create();
    const reference = `erasure-${first}`;
    await reserved(reference, first);
    await local().store.records.restarted(reference, {
      dataKeyId: taker,
      startedAt: new Date().toISOString(),
    });
    // The first start's verification ran; its redaction comes before its ending is recorded.
    await recordErasure(local().store, local().dataKeys, reference, new Date().toISOString(), {
      dataKeyId: first,
    });
    for (const keyId of [first, taker])
      expect((await local().store.dataKeys.get(keyId))?.state).toBe('destroyed');
    expect((await local().store.records.get(reference))?.redactedAt).toBeDefined();
  });

  it('destroys the key of a start that took the record over between its read and the erasure recorded', async () => {
    const first = await local().dataKeys.create();
    const taker = await local().dataKeys.create();
    const reference = `erasure-race-${first}`;
    await reserved(reference, first);
    const { records } = local().store;
    // The take-over lands after the erasure read the record, just before it marks it erased.
    const racing = {
      records: {
        get: (ref: string) => records.get(ref),
        redacted: async (ref: string, at: string) => {
          await records.restarted(ref, { dataKeyId: taker, startedAt: new Date().toISOString() });
          await records.redacted(ref, at);
        },
      },
    };
    await recordErasure(racing, local().dataKeys, reference, new Date().toISOString(), { dataKeyId: first });
    const record = await records.get(reference);
    expect(record).toMatchObject({ dataKeyId: taker, redactedAt: expect.any(String) });
    for (const keyId of [first, taker])
      expect((await local().store.dataKeys.get(keyId))?.state).toBe('destroyed');
  });

  it('marks no record made anew between its read and its mark, when it knows the verification by its session only', async () => {
    const earlier = await local().dataKeys.create();
    const later = await local().dataKeys.create();
    const reference = `erasure-session-${earlier}`;
    const sessionId = '6a1f0c8e-3b7d-4e2a-9c5f-1d2e3f4a5b6c';
    await reserved(reference, earlier);
    const { records } = local().store;
    await records.ended(reference, {
      verificationProfileId: '1b0f7c2e-8d3a-4b6e-9f1a-2c3d4e5f6a7b',
      provider: 'yoti',
      dataKeyId: earlier,
      sessionId,
      status: 'succeeded',
      startedAt: new Date().toISOString(),
      endedAt: new Date().toISOString(),
    });
    // Between the read and the mark: the record erased (another redaction), purged, and the
    // reference started anew.
    const racing = {
      records: {
        get: (ref: string) => records.get(ref),
        redacted: async (ref: string, at: string, dataKeyId?: string) => {
          await records.redacted(ref, '2000-01-01T00:00:00.000Z');
          await records.purge('2000-01-02T00:00:00.000Z');
          await reserved(ref, later);
          await records.redacted(ref, at, dataKeyId);
        },
      },
    };
    await recordErasure(racing, local().dataKeys, reference, new Date().toISOString(), { sessionId });
    expect(await records.get(reference)).toMatchObject({ dataKeyId: later, status: 'started' });
    expect((await records.get(reference))?.redactedAt).toBeUndefined();
  });

  it("touches no later verification's record: a redaction that comes after the reference was used again", async () => {
    const earlier = await local().dataKeys.create();
    const later = await local().dataKeys.create();
    const reference = `erasure-${later}`;
    // The earlier verification's record was purged; a new one reserved the reference since.
    await reserved(reference, later);
    await recordErasure(local().store, local().dataKeys, reference, new Date().toISOString(), {
      dataKeyId: earlier,
    });
    expect((await local().store.dataKeys.get(later))?.state).toBe('live');
    expect((await local().store.records.get(reference))?.redactedAt).toBeUndefined();
  });
});
