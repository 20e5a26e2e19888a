import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { type ActivityDeps } from '../../activities/deps';
import { createActivities } from '../../activities/index';
import { type CreatedSession } from '../../activities/session-activities';
import { type VerificationInput } from '../../domain/verification';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { prepareVerificationInput } from '../../client/prepare-input';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { localActivityDeps } from '../harness/activity-deps';
import { testProviderRequest } from '../harness/requests';

// A create attempt whose answer reached the vault but not the workflow (the worker died after the
// activity finished, before reporting) left a live session: the retry must say so, so the
// verification sweeps it, and its records go once the verification has no orphan left to find.
describe('create attempts', () => {
  let emulator: Emulator;
  let identity: IdentityClient;
  let dataDir: string;
  let deps: ActivityDeps;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 23 });
    identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-attempts-'));
    deps = await localActivityDeps(dataDir, identity);
  });
  afterAll(async () => {
    await identity.close();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const createIn = async (workflowId: string) => {
    const activities = createActivities(deps);
    const input = await prepareVerificationInput(
      testProviderRequest(workflowId.replace(/^idv-/, ''), emulator.verificationProfiles[0]?.id ?? ''),
      deps.dataKeys,
    );
    const environment = new MockActivityEnvironment({
      workflowExecution: { workflowId, runId: 'run-1' },
    });
    const create = (args: VerificationInput) => activities.createSession(args);
    return await environment.run<[VerificationInput], CreatedSession, typeof create>(create, input);
  };

  it('reports possible orphans when an earlier attempt created a session this one did not keep', async () => {
    const first = await createIn('idv-lost-answer');
    expect(first.orphansPossible).toBe(false);
    // The first answer is "lost": the activity runs again and creates a second session.
    const second = await createIn('idv-lost-answer');
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.orphansPossible).toBe(true);
  });

  it('forgets the attempts of a verification on request', async () => {
    await createIn('idv-forget');
    const activities = createActivities(deps);
    expect(await deps.vault.createAttempts('idv-forget')).toHaveLength(1);
    await new MockActivityEnvironment().run(
      (id: string) => activities.forgetCreateAttempts(id),
      'idv-forget',
    );
    expect(await deps.vault.createAttempts('idv-forget')).toEqual([]);
  });
});
