import { type IdvClient } from '../../client/idv-client';
import { type VerificationRequest } from '../../domain/verification';

/** What a scenario needs: the client and the emulator's control API. */
export interface ScenarioContext {
  idv: IdvClient;
  profileId: string;
  control: (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ) => Promise<Record<string, unknown>>;
}

/** A named run of the verification workflows whose histories are recorded and replayed. */
export interface Scenario {
  name: string;
  /** Runs the scenario; resolves to the IDs of the workflows whose histories to keep. */
  run(context: ScenarioContext, reference: string): Promise<string[]>;
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

/** Scenarios covering every branch of the workflows that changes their history. */
export const scenarios: Scenario[] = [
  {
    name: 'success-with-attachments-and-redaction',
    async run({ idv, profileId }, reference) {
      const { handle, nextStep } = await idv.startVerification({
        ...testProvider(profileId, reference),
        results: 'data+attachments',
      });
      await handle.result();
      await idv.client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`).result();
      return [handle.workflowId, `idv-redact-${nextStep.sessionId}`];
    },
  },
  {
    name: 'timeout-cancels-at-service',
    async run({ idv, profileId, control }, reference) {
      await control('PUT', '/script', { outcome: 'manual' });
      const { handle } = await idv.startVerification({
        ...testProvider(profileId, reference),
        timeout: '2s',
        redactAfter: 'never',
      });
      await handle.result();
      await control('PUT', '/script', { outcome: 'by-input' });
      return [handle.workflowId];
    },
  },
  {
    name: 'caller-cancel-and-redirect',
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
      return [handle.workflowId];
    },
  },
  {
    name: 'refreshed-step',
    async run({ idv, profileId, control }, reference) {
      await control('PUT', '/script', { outcome: 'manual', stepTtlSeconds: 2 });
      const { handle, nextStep } = await idv.startVerification({
        reference,
        verificationProfileId: profileId,
        provider: 'yoti',
        capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
        redactAfter: 'never',
      });
      await handle.refreshStep();
      await control('POST', `/sessions/${nextStep.sessionId}/complete`);
      await handle.result();
      await control('PUT', '/script', { outcome: 'by-input', stepTtlSeconds: 300 });
      return [handle.workflowId];
    },
  },
  {
    name: 'native-challenge',
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
      return [handle.workflowId];
    },
  },
];
