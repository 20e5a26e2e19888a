import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { prepareVerificationInput } from '../../verification/client/prepare-input';
import { verificationSession } from '../../verification/workflows/verification-session';
import { type ActivityDeps, createActivities } from '../../workers/activities';
import { localActivityDeps } from '../harness/activity-deps';
import { harnessEnv, harnessValue } from '../harness/env';
import { uniqueTaskQueue, withWorker } from '../harness/worker';

// The input is checked by a local activity before anything else runs. A cancel that is already
// there when the first task runs (a backlog, a worker away, a parent closing) must still end the
// verification as cancelled through its clean-up, not cancel the check and skip the clean-up.
describe('a cancel that comes with the start', () => {
  let emulator: Emulator;
  let identity: IdentityClient;
  let dataDir: string;
  let deps: ActivityDeps;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 6 });
    identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-cancel-first-'));
    deps = await localActivityDeps(dataDir, identity);
  });
  afterAll(async () => {
    await identity.close();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('ends the verification cancelled, through its clean-up', async () => {
    const reference = `cancel-first-${Date.now()}`;
    const input = await prepareVerificationInput(
      {
        reference,
        verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
        provider: 'mdl-digital-credentials',
        capabilities: ['NativeChallenge'],
        timeout: '1h',
        redactAfter: 'never',
      },
      deps.dataKeys,
    );
    const taskQueue = uniqueTaskQueue('cancel-first');
    const connection = await Connection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    try {
      // No worker polls yet: the start and the cancel reach the first task together.
      const handle = await new Client({ connection }).workflow.start(verificationSession, {
        taskQueue,
        workflowId: `idv-${reference}`,
        args: [input],
      });
      await handle.cancel();
      const outcome = await withWorker({ activities: createActivities(deps), taskQueue }, () =>
        handle.result(),
      );
      expect(outcome).toMatchObject({ status: 'cancelled' });
      expect(outcome.sessionId).toBeUndefined();
    } finally {
      await connection.close();
    }
  }, 60_000);
});
