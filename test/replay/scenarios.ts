import { type IdvClient } from '../../verification/client/idv-client';
import { type VerificationRequest } from '../../verification/domain/verification';
import { orphanSweepWorkflowId, redactionWorkflowId } from '../../verification/shared/ids';
import { keyringWorkflowId } from '../../keyring/shared';

/** What a scenario needs: the client and the emulator's control API. */
export interface ScenarioContext {
  idv: IdvClient;
  profileId: string;
  control: (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ) => Promise<Record<string, unknown>>;
  /** The earlier platform of tenant-1 (the emulator's), for changes made outside the registry. */
  agent: { baseUrl: string; apiKey: string };
}

/** A workflow run whose history a scenario keeps (the latest run when `runId` is absent). */
export interface RecordedRun {
  workflowId: string;
  runId?: string;
}

/** A named run of the verification workflows whose histories are recorded and replayed. */
export interface Scenario {
  name: string;
  /** The roles of the runs it keeps, in order: files are `<name>.<role>.json`. */
  roles: readonly string[];
  /** Runs the scenario; resolves to the run of each role. */
  run(context: ScenarioContext, reference: string): Promise<Record<string, RecordedRun>>;
}

/** The history file names the scenarios declare. */
export function historyFiles(list: readonly Scenario[]): string[] {
  return list.flatMap((scenario) => scenario.roles.map((role) => `${scenario.name}.${role}.json`));
}

const testProvider = (profileId: string, reference: string): VerificationRequest => ({
  reference,
  verificationProfileId: profileId,
  provider: 'trinsic-test-database-lookup',
  capabilities: ['PollResult'],
  providerInput: {
    'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode: '123456' },
  },
});

const mobile = (profileId: string, reference: string): VerificationRequest => ({
  reference,
  verificationProfileId: profileId,
  provider: 'yoti',
  capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
  redactAfter: 'never',
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Scenarios covering every branch of the workflows that changes their history. */
export const scenarios: Scenario[] = [
  {
    name: 'success-with-attachments-and-redaction',
    roles: ['verification', 'redaction'],
    async run({ idv, profileId }, reference) {
      const { handle, nextStep } = await idv.startVerification({
        ...testProvider(profileId, reference),
        results: 'data+attachments',
      });
      await handle.result();
      const redaction = `idv-redact-${nextStep.sessionId}`;
      await idv.client.workflow.getHandle(redaction).result();
      return { verification: { workflowId: handle.workflowId }, redaction: { workflowId: redaction } };
    },
  },
  {
    name: 'redaction-due-later',
    roles: ['verification', 'redaction'],
    async run({ idv, profileId }, reference) {
      // Started with a start delay by the clean-up's scheduleRedaction, not as a sleeping child.
      const { handle, nextStep } = await idv.startVerification({
        ...testProvider(profileId, reference),
        redactAfter: '2s',
      });
      await handle.result();
      const redaction = redactionWorkflowId({ sessionId: nextStep.sessionId });
      await idv.client.workflow.getHandle(redaction).result();
      return { verification: { workflowId: handle.workflowId }, redaction: { workflowId: redaction } };
    },
  },
  {
    name: 'keyring-rotation',
    roles: ['keyring'],
    async run({ idv }) {
      // The run after a rotation: started from the carried key, its earlier run deleted.
      const before = (await idv.keyringStatus()).lastRotation?.completedAt;
      await idv.rotateKeys();
      for (;;) {
        const status = await idv.keyringStatus();
        if (status.lastRotation && status.lastRotation.completedAt !== before) break;
        await pause(200);
      }
      const keyring = idv.client.workflow.getHandle(keyringWorkflowId(idv.taskQueue));
      return { keyring: { workflowId: keyring.workflowId, runId: (await keyring.describe()).runId } };
    },
  },
  {
    name: 'timeout-cancels-at-service',
    roles: ['verification'],
    async run({ idv, profileId, control }, reference) {
      await control('PUT', '/script', { outcome: 'manual' });
      const { handle } = await idv.startVerification({
        ...testProvider(profileId, reference),
        timeout: '2s',
        redactAfter: 'never',
      });
      await handle.result();
      await control('PUT', '/script', { outcome: 'by-input' });
      return { verification: { workflowId: handle.workflowId } };
    },
  },
  {
    name: 'caller-cancel-and-redirect',
    roles: ['verification'],
    async run({ idv, profileId, control }, reference) {
      await control('PUT', '/script', { outcome: 'manual' });
      const { handle } = await idv.startVerification({
        ...testProvider(profileId, reference),
        redactAfter: 'never',
      });
      await handle.redirectCaptured();
      await handle.cancel('customer left');
      await handle.result();
      await control('PUT', '/script', { outcome: 'by-input' });
      return { verification: { workflowId: handle.workflowId } };
    },
  },
  {
    name: 'refreshed-step',
    roles: ['verification'],
    async run({ idv, profileId, control }, reference) {
      await control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 2 });
      const { handle, nextStep } = await idv.startVerification(mobile(profileId, reference));
      await handle.refreshStep();
      await control('POST', `/sessions/${nextStep.sessionId}/complete`);
      await handle.result();
      await control('PUT', '/script', { outcome: 'by-input', stepTtlSeconds: 300 });
      return { verification: { workflowId: handle.workflowId } };
    },
  },
  {
    name: 'native-challenge',
    roles: ['verification'],
    async run({ idv, profileId }, reference) {
      const { handle } = await idv.startVerification({
        reference,
        verificationProfileId: profileId,
        provider: 'mdl-digital-credentials',
        capabilities: ['NativeChallenge'],
        results: 'none',
      });
      await handle.submitNativeChallenge('device-response');
      await handle.result();
      return { verification: { workflowId: handle.workflowId } };
    },
  },
  {
    name: 'workflow-cancelled',
    roles: ['verification', 'redaction'],
    async run({ idv, profileId, control }, reference) {
      await control('PUT', '/script', { outcome: 'manual' });
      const { handle, nextStep } = await idv.startVerification(testProvider(profileId, reference));
      await idv.client.workflow.getHandle(handle.workflowId).cancel();
      await handle.result().catch(() => undefined);
      const redaction = `idv-redact-${nextStep.sessionId}`;
      await idv.client.workflow.getHandle(redaction).result();
      await control('PUT', '/script', { outcome: 'by-input' });
      return { verification: { workflowId: handle.workflowId }, redaction: { workflowId: redaction } };
    },
  },
  {
    name: 'deadline-during-creation',
    roles: ['verification', 'orphan-sweep'],
    async run({ idv, profileId, control }, reference) {
      await control('PUT', '/faults', { operation: 'CreateDirectProviderSession', errorRate: 1 });
      const request = { ...testProvider(profileId, reference), timeout: '3s' };
      await idv.startVerification(request).catch(() => undefined);
      const workflowId = `idv-${reference}`;
      await idv.client.workflow.getHandle(workflowId).result();
      await control('DELETE', '/faults');
      return { verification: { workflowId }, 'orphan-sweep': await sweptProfile(idv, profileId) };
    },
  },
  {
    name: 'orphan-sweep',
    roles: ['verification', 'orphan-sweep'],
    async run({ idv, profileId, control }, reference) {
      await control('PUT', '/faults', {
        operation: 'CreateDirectProviderSession',
        dropResponseRate: 1,
        count: 1,
      });
      const { handle } = await idv.startVerification({
        ...testProvider(profileId, reference),

        redactAfter: 'never',
      });
      await handle.result();
      return {
        verification: { workflowId: handle.workflowId },
        'orphan-sweep': await sweptProfile(idv, profileId),
      };
    },
  },
  {
    name: 'continue-as-new',
    roles: ['first-run', 'last-run'],
    async run({ idv, profileId, control }, reference) {
      // The recorder's server suggests continue-as-new early (see record.ts).
      await control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 1 });
      const { handle, nextStep } = await idv.startVerification(mobile(profileId, reference));
      const firstRunId = (await handle.workflow.describe()).runId;
      while ((await handle.workflow.describe()).runId === firstRunId) await pause(200);
      await control('POST', `/sessions/${nextStep.sessionId}/complete`);
      await handle.result();
      await control('PUT', '/script', { outcome: 'by-input', stepTtlSeconds: 300 });
      const lastRunId = (await handle.workflow.describe()).runId;
      return {
        'first-run': { workflowId: handle.workflowId, runId: firstRunId },
        'last-run': { workflowId: handle.workflowId, runId: lastRunId },
      };
    },
  },
];

/** The profile's orphan sweep, once it has ended: the run to record. */
async function sweptProfile(
  idv: IdvClient,
  profileId: string,
): Promise<{ workflowId: string; runId: string }> {
  const sweep = idv.client.workflow.getHandle(orphanSweepWorkflowId(profileId));
  await sweep.result();
  return { workflowId: sweep.workflowId, runId: (await sweep.describe()).runId };
}
