import { deploymentStatus } from '../../workers/deployment';
import { settled, useBuilds, within } from '../harness/builds';

// `idv dev` runs the whole deployment in one process and promotes its build as it starts
// (`promote: 'on-start'`). Restarted with another IDV_BUILD_ID (a package upgrade) while a
// verification it started still waits for its user, no worker of the old build is left: the
// verification moves to the new build, and ends there.
describe('idv dev restarted with another build while its verifications run', () => {
  const builds = useBuilds('dev-restart');

  it('ends a verification started by the previous build once its user completes', async () => {
    const { idv, control, client, deployment } = builds();
    await control('PUT', '/script', { outcome: 'manual' });

    await builds().start('dev-1', { promote: 'on-start' });
    const waiting = await idv.startVerification(builds().request('waiting', { redactAfter: 'never' }));
    await builds().expectRanOn(waiting.handle.workflowId, 'dev-1');

    // `idv dev` stops (Ctrl-C) and starts again with another build.
    await builds().stop('dev-1');
    await builds().start('dev-2', { promote: 'on-start' });
    expect((await deploymentStatus(client, deployment)).currentBuildId).toBe('dev-2');

    // New work runs (the existing test's promise holds).
    const fresh = await idv.startVerification(builds().request('fresh', { redactAfter: 'never' }));
    await control('POST', `/sessions/${fresh.nextStep.sessionId}/complete`);
    expect(await fresh.handle.result()).toMatchObject({ status: 'succeeded' });

    // The user of the older verification finishes: nothing runs its build, so it never ends.
    await control('POST', `/sessions/${waiting.nextStep.sessionId}/complete`);
    const result = settled(waiting.handle.result());
    const outcome = await within(result, 30_000);
    const status = await deploymentStatus(client, deployment);
    // Not left pinned to a build nobody runs on the shared dev server.
    await waiting.handle.workflow.terminate('test over').catch(() => undefined);
    await result;
    expect({
      outcome,
      stranded: status.builds.find((build) => build.buildId === 'dev-1')?.pinnedRunning,
    }).toMatchObject({ outcome: { status: 'succeeded' }, stranded: 0 });
  }, 120_000);
});
