import { type IdvStore } from '../../stores/idv-store';
import { IdvClient } from '../../verification/client/idv-client';
import { settled, useBuilds, within } from '../harness/builds';

// An ended verification Temporal still keeps is read and redacted while the store is away: its
// history holds the ending (the redaction itself runs on workers, which retry the store).
describe('the store away when an ended verification is read or redacted', () => {
  const builds = useBuilds('ended-away');

  it('answers progress() and starts the redaction from Temporal while the store is away', async () => {
    const { control, idv, store, client, taskQueue } = builds();
    await control('PUT', '/script', { outcome: 'manual' });
    await builds().start('A');
    const { handle, nextStep } = await idv.startVerification(
      builds().request('away', { redactAfter: 'never' }),
    );
    await control('POST', `/sessions/${nextStep.sessionId}/complete`);
    expect(await handle.result()).toMatchObject({ status: 'succeeded' });

    // The client's process loses its store (PostgreSQL restarting, a network partition).
    const away = () => Promise.reject(new Error('connect ECONNREFUSED (the store is away)'));
    const awayStore = { ...store, records: { ...store.records, get: away } } as IdvStore;
    const awayClient = new IdvClient({ client, store: awayStore, taskQueue });

    const progress = await within(settled(awayClient.getVerification(handle.reference).progress()), 20_000);
    const redaction = await within(settled(awayClient.redactVerification(handle.reference)), 30_000);
    expect({ progress, redaction }).toMatchObject({
      progress: { status: 'succeeded', sessionId: nextStep.sessionId },
      redaction: { redactedAtService: true },
    });
  }, 120_000);
});
