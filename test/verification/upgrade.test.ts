import { randomInt, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { quietBundleLogger } from '../harness/release-bundle';
import { bundleWorkflowCode, NativeConnection, type Worker } from '@temporalio/worker';
import { AgentClients } from '../../api/agent/agent-clients';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { OnboardingClient } from '../../agent-platform/client/onboarding-client';
import { WebhookRegistryClient } from '../../agent-platform/client/webhook-registry-client';
import { agentEventSignal } from '../../agent-platform/shared/messages';
import { onboardingReference } from '../../agent-platform/domain/onboarding';
import { encryptingDataConverter, failureConverterPath } from '../../codec/data-converter';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { emulatorControl } from '../../emulator/control-client';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { IdvClient } from '../../verification/client/idv-client';
import { redactionWorkflowId } from '../../verification/shared/ids';
import { deploymentStatus, promoteBuild } from '../../workers/deployment';
import { createVerificationWorker } from '../../workers/verification-worker';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { testProviderRequest } from '../harness/requests';
import { uniqueTaskQueue } from '../harness/worker';

const TENANT = 'tenant-up';

// A release: build A runs verifications (one waiting for its user, one with a redaction due
// later), an onboarding and a webhook registry; build B, with changed workflow code, starts and
// becomes current. Work started on A ends correctly (pinned on A, or moved to B), new work runs
// on B, and A's worker can then stop with nothing stuck.
describe('an upgrade through Worker Versioning', () => {
  const deployment = `upgrade-${randomUUID().slice(0, 8)}`;
  const taskQueue = uniqueTaskQueue('upgrade');
  let emulator: Emulator;
  let identity: IdentityClient;
  let agentClients: AgentClients;
  let dataDir: string;
  let store: IdvStore;
  let connection: Connection;
  let client: Client;
  let idv: IdvClient;
  const workers: Array<{ worker: Worker; running: Promise<void>; native: NativeConnection }> = [];

  beforeAll(async () => {
    emulator = await startEmulator({
      seed: randomInt(1, 2 ** 31),
      agentKeys: { [TENANT]: 'agent_key_tenant_up_0123456789' },
    });
    identity = createIdentityClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKeys[0] ?? '',
      budget: 'unlimited',
    });
    agentClients = new AgentClients({ keys: emulator.agentKeys, baseUrl: emulator.agentBaseUrl });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-upgrade-'));
    store = await openLocalStore(dataDir);
    connection = await Connection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    client = new Client({ connection, dataConverter: encryptingDataConverter(harnessEncryptionKeys()) });
    idv = new IdvClient({ client, store, taskQueue });
  });

  afterAll(async () => {
    for (const { worker, running, native } of workers) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await native.close();
    }
    await agentClients?.close();
    await identity?.close();
    await emulator?.close();
    await connection?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function startBuild(
    buildId: string,
    codePath: string,
    promote: 'first-install' | 'on-start' = 'first-install',
  ): Promise<Worker> {
    const native = await NativeConnection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    const worker = await createVerificationWorker({
      connection: native,
      taskQueue,
      identity,
      store,
      encryptionKeys: harnessEncryptionKeys(),
      workflowBundle: { codePath },
      deployment: { name: deployment, buildId },
      orphans: { horizonMs: 5_000 },
      agent: { clients: agentClients },
      promote,
    });
    workers.push({ worker, running: worker.run(), native });
    return worker;
  }

  /** Waits until a workflow's latest task ran on `buildId`. */
  async function expectRanOn(workflowId: string, buildId: string): Promise<void> {
    await eventually(
      async () => ((await buildOf(workflowId)) === buildId ? true : undefined),
      `${workflowId} on build ${buildId}`,
    );
  }

  /** The build a workflow's latest task ran on. */
  async function buildOf(workflowId: string): Promise<string | undefined> {
    const { workflowExecutionInfo } = await client.workflowService.describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId },
    });
    return workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
  }

  it('ends work started on A correctly, runs new work on B, and lets A stop with nothing stuck', async () => {
    const control = emulatorControl(emulator.controlUrl);
    await control('PUT', '/script', { outcome: 'manual' });
    const request = (name: string, extra = {}) =>
      testProviderRequest(`upgrade-${name}-${Date.now()}`, emulator.verificationProfiles[0]?.id ?? '', extra);

    // Build B's code, bundled now: the redaction due 25 s after its verification's end must fall
    // due once B is current, so nothing slow (bundling, on a loaded machine) stands before that.
    const bundleB = await bundleWorkflowCode({
      workflowsPath: require.resolve('../fixtures/build-b-workflows'),
      failureConverterPath,
      logger: quietBundleLogger,
    });
    const bundlePath = join(dataDir, 'build-b.js');
    await writeFile(bundlePath, bundleB.code);

    // Build A, the first: made current as it starts.
    const workerA = await startBuild('A', harnessValue(harnessEnv.workflowBundle));
    const waiting = await idv.startVerification(request('waiting', { redactAfter: 'never' }));
    const redactedLater = await idv.startVerification(request('later', { redactAfter: '25s' }));
    await control('POST', `/sessions/${redactedLater.nextStep.sessionId}/complete`);
    expect(await redactedLater.handle.result()).toMatchObject({ status: 'succeeded' });
    const webhooks = new WebhookRegistryClient({ client, taskQueue });
    await webhooks.list(TENANT);
    const onboardings = new OnboardingClient({ client, taskQueue });
    const connectionId = `conn-upgrade-${Date.now()}`;
    const onboarding = await onboardings.start({
      tenant: TENANT,
      connectionId,
      verification: {
        verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
        provider: 'yoti',
        capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
        redactAfter: 'never',
        polling: { initialMs: 200, maxMs: 500 },
      },
    });
    await expectRanOn(waiting.handle.workflowId, 'A');
    await expectRanOn(onboarding.workflowId, 'A');

    // Build B, with changed workflow code, starts and is made current.
    await startBuild('B', bundlePath);
    await eventually(
      () => promoteBuild(client, { name: deployment, buildId: 'B' }).catch(() => undefined),
      'build B made current (once its workers poll)',
    );

    // New work runs on B.
    const fresh = await idv.startVerification(request('fresh', { redactAfter: 'never' }));
    await expectRanOn(fresh.handle.workflowId, 'B');

    // The verification pinned to A ends on A.
    await control('POST', `/sessions/${waiting.nextStep.sessionId}/complete`);
    expect(await waiting.handle.result()).toMatchObject({ status: 'succeeded' });
    await expectRanOn(waiting.handle.workflowId, 'A');

    // The long-lived work moves to B: the registry compares there, the onboarding goes on there.
    await webhooks.reconcile(TENANT);
    await expectRanOn(`idv-agent-webhooks-${TENANT}`, 'B');
    await client.workflow.getHandle(onboarding.workflowId).signal(agentEventSignal, {
      tenant: TENANT,
      connectionId,
      messageType: 'new_connection',
      objectId: 'hello',
      receivedAt: new Date().toISOString(),
    });
    const childSession = await eventually(async () => {
      const progress = await idv
        .getVerification(onboardingReference(TENANT, connectionId))
        .progress()
        .catch(() => undefined);
      return progress?.sessionId;
    }, "the onboarding's verification");
    await control('POST', `/sessions/${childSession}/complete`);
    expect(await onboardings.result(TENANT, connectionId)).toMatchObject({ endedBy: 'verified' });
    await expectRanOn(onboarding.workflowId, 'B');

    // The redaction due later starts once due, on the build current then.
    const redaction = redactionWorkflowId({ sessionId: redactedLater.nextStep.sessionId });
    expect(await client.workflow.getHandle(redaction).result()).toMatchObject({ redactedAtService: true });
    await expectRanOn(redaction, 'B');

    // Nothing pinned runs on A any more: its worker stops, and everything goes on without it.
    await eventually(async () => {
      const status = await deploymentStatus(client, deployment);
      return status.currentBuildId === 'B' &&
        status.builds.find((build) => build.buildId === 'A')?.pinnedRunning === 0
        ? true
        : undefined;
    }, 'build A drained of pinned work');
    workerA.shutdown();
    const late = await idv.startVerification(request('late', { redactAfter: 'never' }));
    await control('POST', `/sessions/${late.nextStep.sessionId}/complete`);
    await control('POST', `/sessions/${fresh.nextStep.sessionId}/complete`);
    expect(await late.handle.result()).toMatchObject({ status: 'succeeded' });
    expect(await fresh.handle.result()).toMatchObject({ status: 'succeeded' });

    // A verification that ended on A is still read and erased by its reference (idv status, idv
    // redact), with no worker of A left to answer a query.
    expect(await waiting.handle.progress()).toMatchObject({
      status: 'succeeded',
      sessionId: waiting.nextStep.sessionId,
    });
    expect(await idv.redactVerification(waiting.handle.reference)).toMatchObject({ redactedAtService: true });
  }, 240_000);

  it('takes the work of a current build that no longer runs when started as `idv dev` starts (after a package upgrade)', async () => {
    const control = emulatorControl(emulator.controlUrl);
    for (const { worker, running } of workers) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    }
    expect((await deploymentStatus(client, deployment)).currentBuildId).toBe('B');
    await startBuild('C', harnessValue(harnessEnv.workflowBundle), 'on-start');
    expect((await deploymentStatus(client, deployment)).currentBuildId).toBe('C');
    const next = await idv.startVerification(
      testProviderRequest(`upgrade-dev-${Date.now()}`, emulator.verificationProfiles[0]?.id ?? '', {
        redactAfter: 'never',
      }),
    );
    await control('POST', `/sessions/${next.nextStep.sessionId}/complete`);
    expect(await next.handle.result()).toMatchObject({ status: 'succeeded' });
    await expectRanOn(next.handle.workflowId, 'C');
  }, 60_000);
});
