import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataKeys } from '../../codec/data-keys';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { recordErasure } from '../../verification/client/records';
import { FixedKeyring } from '../harness/fixed-keyring';

// Recording a reference's erasure destroys every key its record names: the starts it took over,
// and the one it names now, which an ending not recorded yet (its close handed to a workflow of
// its own) would have moved aside.
describe("recording a reference's erasure", () => {
  let directory: string;
  let store: IdvStore;
  let dataKeys: DataKeys;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'idv-record-erasure-'));
    store = await openLocalStore(directory);
    dataKeys = new DataKeys(store.dataKeys, new FixedKeyring());
  });
  afterAll(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  /** A start's record for `reference` under `dataKeyId`. */
  const reserved = (reference: string, dataKeyId: string) =>
    store.records.reserve({
      reference,
      verificationProfileId: '1b0f7c2e-8d3a-4b6e-9f1a-2c3d4e5f6a7b',
      provider: 'yoti',
      dataKeyId,
      status: 'started',
      startedAt: new Date().toISOString(),
    });

  it('destroys the keys of every start under the reference, before its ending is recorded too', async () => {
    const first = await dataKeys.create();
    const taker = await dataKeys.create();
    const reference = `erasure-${first}`;
    await reserved(reference, first);
    await store.records.restarted(reference, { dataKeyId: taker, startedAt: new Date().toISOString() });
    // The first start's verification ran; its redaction comes before its ending is recorded.
    await recordErasure(store, dataKeys, reference, new Date().toISOString(), { dataKeyId: first });
    for (const keyId of [first, taker]) expect((await store.dataKeys.get(keyId))?.state).toBe('destroyed');
    expect((await store.records.get(reference))?.redactedAt).toBeDefined();
  });

  it("touches no later verification's record: a redaction that comes after the reference was used again", async () => {
    const earlier = await dataKeys.create();
    const later = await dataKeys.create();
    const reference = `erasure-${later}`;
    // The earlier verification's record was purged; a new one reserved the reference since.
    await reserved(reference, later);
    await recordErasure(store, dataKeys, reference, new Date().toISOString(), { dataKeyId: earlier });
    expect((await store.dataKeys.get(later))?.state).toBe('live');
    expect((await store.records.get(reference))?.redactedAt).toBeUndefined();
  });
});
