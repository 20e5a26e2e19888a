import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities, type ActivityDeps } from '../../workers/activities';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { localActivityDeps } from '../harness/activity-deps';

// The erasure of a session's local data: its attachments are sealed under the data key, so the
// key's destruction (which makes every sealed copy unreadable) is not held back by a removal of
// the attachments or of the vault's entry that fails; that failure still fails the step, to be
// tried again.
const SESSION = randomUUID();

describe('deleteLocalSessionData', () => {
  let identity: IdentityClient;
  let dataDir: string;
  let deps: ActivityDeps;
  beforeAll(async () => {
    // No call reaches the service here.
    identity = createIdentityClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused-key-0123456789' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-local-erasure-'));
    deps = await localActivityDeps(dataDir, identity);
  });
  afterAll(async () => {
    await identity.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('destroys the data key when removing the attachments fails, then fails to be tried again', async () => {
    const keyId = await deps.dataKeys.create();
    await deps.blobs.put(SESSION, 'att-1', Readable.from([Buffer.from('sealed attachment')]));
    let removals = 0;
    const failingOnce = {
      ...deps.blobs,
      put: deps.blobs.put.bind(deps.blobs),
      read: deps.blobs.read.bind(deps.blobs),
      deleteSession: async (sessionId: string) => {
        removals += 1;
        if (removals === 1) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        return await deps.blobs.deleteSession(sessionId);
      },
    };
    const activities = createActivities({ ...deps, blobs: failingOnce });
    const environment = new MockActivityEnvironment();
    const erase = (sessionId: string, dataKeyId: string) =>
      activities.deleteLocalSessionData(sessionId, dataKeyId);
    await expect(environment.run(erase, SESSION, keyId)).rejects.toThrow(/EIO/);
    await expect(deps.dataKeys.seal(keyId, 'x')).rejects.toMatchObject({ name: 'DataKeyDestroyedError' });
    // The retry removes the attachments; the key stays destroyed.
    await expect(environment.run(erase, SESSION, keyId)).resolves.toEqual({
      attachmentsDeleted: 1,
      dataKeyDestroyed: true,
    });
    expect(await deps.blobs.read(SESSION, 'att-1')).toBeUndefined();
  });

  it('destroys the data key when the vault fails to destroy the session, then fails to be tried again', async () => {
    const sessionId = randomUUID();
    const keyId = await deps.dataKeys.create();
    let destroys = 0;
    // The real vault, but its first destroy fails as a store that is down would.
    const failingOnce = new Proxy(deps.vault, {
      get(target, property, receiver) {
        if (property === 'destroy')
          return async (id: string) => {
            destroys += 1;
            if (destroys === 1) throw new Error('connection terminated unexpectedly');
            await target.destroy(id);
          };
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const activities = createActivities({ ...deps, vault: failingOnce });
    const environment = new MockActivityEnvironment();
    const erase = (id: string, dataKeyId: string) => activities.deleteLocalSessionData(id, dataKeyId);
    await deps.blobs.put(sessionId, 'att-1', Readable.from([Buffer.from('sealed attachment')]));
    await expect(environment.run(erase, sessionId, keyId)).rejects.toThrow(/connection terminated/);
    await expect(deps.dataKeys.seal(keyId, 'x')).rejects.toMatchObject({ name: 'DataKeyDestroyedError' });
    // The attachments went all the same: one step failing holds no other back.
    expect(await deps.blobs.read(sessionId, 'att-1')).toBeUndefined();
    await expect(environment.run(erase, sessionId, keyId)).resolves.toMatchObject({ dataKeyDestroyed: true });
    expect(destroys).toBe(2);
  });

  it('destroys the named key and the attachments though the session’s vault entry cannot be read', async () => {
    const sessionId = randomUUID();
    const keyId = await deps.dataKeys.create();
    await deps.blobs.put(sessionId, 'att-1', Readable.from([Buffer.from('sealed attachment')]));
    // An entry the directory store cannot parse (a disk's damage, a write of another build).
    await mkdir(join(dataDir, 'vault', 'sessions'), { recursive: true });
    await writeFile(join(dataDir, 'vault', 'sessions', `${sessionId}.json`), '{"workflowId":');
    const activities = createActivities(deps);
    const erase = (id: string, dataKeyId: string) => activities.deleteLocalSessionData(id, dataKeyId);
    await expect(new MockActivityEnvironment().run(erase, sessionId, keyId)).rejects.toThrow();
    await expect(deps.dataKeys.seal(keyId, 'x')).rejects.toMatchObject({ name: 'DataKeyDestroyedError' });
    expect(await deps.blobs.read(sessionId, 'att-1')).toBeUndefined();
  });
});
