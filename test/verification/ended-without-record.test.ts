import { DataKeys } from '../../codec/data-keys';
import { TemporalKeyring } from '../../keyring/client';
import { type IdvStore } from '../../stores/idv-store';
import { prepareVerificationInput } from '../../verification/client/prepare-input';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { verificationWorkflowTypes } from '../../verification/shared/workflows';
import { deploymentStatus, promoteBuild } from '../../workers/deployment';
import { eventually } from '../harness/eventually';
import { settled, useBuilds, within } from '../harness/builds';

// An ended verification is read and redacted with no worker of its build. Its record says how it
// ended only once the clean-up (or, the store away, the orphan sweep) wrote it, and a verification
// started without IdvClient has no record until then: in that window the history answers, never a
// query, which only a worker of the build it was pinned to could answer.
describe('an ended verification whose record has no ending yet, after its build stopped', () => {
  const builds = useBuilds('ended-lag');
  let lagging: IdvStore;

  beforeAll(() => {
    const { store } = builds();
    // The worker's store: the ending is not written (yet) — the store was away at the clean-up
    // and the sweep has not written it, or a replica the client reads from lags.
    lagging = { ...store, records: { ...store.records, ended: () => Promise.resolve() } };
  });

  async function endOnOldBuildThenUpgrade(): Promise<{
    withClient: string;
    withoutClient: string;
    sessions: string[];
  }> {
    const { idv, control, client, store, taskQueue, deployment } = builds();
    await control('PUT', '/script', { outcome: 'manual' });
    await builds().start('A', { store: lagging });

    // One started through IdvClient (its record says `started`) ...
    const started = await idv.startVerification(builds().request('with-client', { redactAfter: 'never' }));
    // ... and one started without it, as the onboarding workflow does (no record at all).
    const dataKeys = new DataKeys(store.dataKeys, new TemporalKeyring({ client, taskQueue }));
    const input = await prepareVerificationInput(
      builds().request('without-client', { redactAfter: 'never' }),
      dataKeys,
    );
    await client.workflow.start(verificationWorkflowTypes.session, {
      workflowId: verificationWorkflowId(input.reference),
      taskQueue,
      args: [input],
    });
    const direct = idv.getVerification(input.reference);
    const directSession = await eventually(
      async () => (await direct.progress().catch(() => undefined))?.sessionId,
      'the direct verification has its session',
    );
    await control('POST', `/sessions/${started.nextStep.sessionId}/complete`);
    await control('POST', `/sessions/${directSession}/complete`);
    expect(await started.handle.result()).toMatchObject({ status: 'succeeded' });
    expect(await direct.result()).toMatchObject({ status: 'succeeded' });

    // The upgrade, by the README: B starts and is promoted; A drained of pinned work, stops.
    await builds().start('B');
    await eventually(
      () => promoteBuild(client, { name: deployment, buildId: 'B' }).catch(() => undefined),
      'B current',
    );
    await eventually(async () => {
      const status = await deploymentStatus(client, deployment);
      return status.builds.find((build) => build.buildId === 'A')?.pinnedRunning === 0 ? true : undefined;
    }, 'A drained');
    await builds().stop('A');
    return {
      withClient: started.handle.reference,
      withoutClient: input.reference,
      sessions: [started.nextStep.sessionId ?? '', directSession],
    };
  }

  let ended: Awaited<ReturnType<typeof endOnOldBuildThenUpgrade>>;

  it('answers progress() of both from Temporal (the history holds the ending)', async () => {
    ended = await endOnOldBuildThenUpgrade();
    const { idv } = builds();
    const progress = await Promise.all(
      [ended.withClient, ended.withoutClient].map((reference) =>
        within(settled(idv.getVerification(reference).progress()), 20_000),
      ),
    );
    expect(progress).toMatchObject([
      { status: 'succeeded', sessionId: ended.sessions[0] },
      { status: 'succeeded', sessionId: ended.sessions[1] },
    ]);
  }, 180_000);

  it('redacts both by reference (idv redact)', async () => {
    const { idv } = builds();
    const reports = await Promise.all(
      [ended.withClient, ended.withoutClient].map((reference) =>
        within(settled(idv.redactVerification(reference)), 30_000),
      ),
    );
    expect(reports).toMatchObject([{ redactedAtService: true }, { redactedAtService: true }]);
  }, 60_000);
});
