import { randomUUID } from 'node:crypto';
import { DataKeyDestroyedError } from '../../codec/data-keys';
import { accessKeyToKeep, keptAccessKey } from '../../verification/activities/access-keys';
import { useLocalDataKeys } from '../harness/local-data-keys';

// The vault keeps a session's results access key sealed under its verification's data key, and
// still reads the plain keys that claims of release 1.0.0 hold.
describe('a results access key kept in the vault', () => {
  const local = useLocalDataKeys('access-keys');

  const claimed = async (resultsAccessKey: string, dataKeyId: string) => {
    const sessionId = randomUUID();
    await local().store.vault.claim(sessionId, {
      workflowId: `idv-${randomUUID()}`,
      profileId: randomUUID(),
      resultsAccessKey,
      dataKeyId,
      collectionMethod: 'PollResult',
      nextStep: { method: 'LaunchBrowser', content: 'https://idv.example/launch', refresh: null },
    });
    return sessionId;
  };

  it('is kept sealed, opened while the data key lives, and unreadable once it is destroyed', async () => {
    const dataKeyId = await local().dataKeys.create();
    const sessionId = await claimed(
      accessKeyToKeep(await local().dataKeys.sealer(dataKeyId), 'the-key'),
      dataKeyId,
    );
    expect(await local().store.vault.accessKey(sessionId)).not.toContain('the-key');
    await expect(
      keptAccessKey({ vault: local().store.vault, dataKeys: local().dataKeys }, sessionId),
    ).resolves.toBe('the-key');
    await local().dataKeys.destroy(dataKeyId);
    await expect(
      keptAccessKey({ vault: local().store.vault, dataKeys: local().dataKeys }, sessionId),
    ).rejects.toBeInstanceOf(DataKeyDestroyedError);
  });

  it('of a claim made by release 1.0.0 (plain) is read as it is', async () => {
    const sessionId = await claimed('a-plain-key', await local().dataKeys.create());
    await expect(
      keptAccessKey({ vault: local().store.vault, dataKeys: local().dataKeys }, sessionId),
    ).resolves.toBe('a-plain-key');
  });
});
