import { setTimeout as sleep } from 'node:timers/promises';
import { type Client } from '@temporalio/client';
import {
  type OnboardingSettings,
  parseOnboardingSettings,
} from '../../agent-platform/domain/onboarding-settings';
import { type Emulator } from '../../emulator/emulator';
import { emulatorControl } from '../../emulator/control-client';
import { type EmbeddedStack } from '../../workers/dev/embedded-stack';
import { progressQuery } from '../../verification/shared/messages';
import { OnboardingClient } from '../../agent-platform/client/onboarding-client';
import { WebhookRegistryClient } from '../../agent-platform/client/webhook-registry-client';

/** The tenant the demo onboards: the emulator's first. */
const demoTenant = (emulator: Emulator) => Object.keys(emulator.agentKeys)[0] ?? 'tenant-1';

/** The demo stack's onboarding settings: the emulator's first tenant, verified on a phone. */
export function demoOnboardingSettings(emulator: Emulator): OnboardingSettings {
  return parseOnboardingSettings({
    tenants: [demoTenant(emulator)],
    waitFor: ['new_connection', 'credential_request'],
    timeout: '1d',
    verification: {
      verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
      provider: 'yoti',
      capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
      redactAfter: 'never',
    },
  });
}

/**
 * The onboarding part of `idv demo`: the platform's events for a new connection reach the
 * stack's receiver (its webhook registered), which starts and drives the connection's
 * onboarding; the person completes the verification it runs; the summary says `verified`.
 */
export async function demoOnboarding(
  stack: EmbeddedStack,
  client: Client,
  taskQueue: string,
  record: (scenario: string, expected: string, got: string) => void,
): Promise<void> {
  const tenant = demoTenant(stack.emulator);
  const control = emulatorControl(stack.emulator.controlUrl);
  const onboardings = new OnboardingClient({ client, taskQueue });
  const registry = new WebhookRegistryClient({ client, taskQueue });
  const webhook = await registry.register(tenant);
  const connectionId = `demo-${Date.now()}`;
  const event = (message_type: string, object_id: string) =>
    control('POST', '/agent-events', { tenant, message_type, object_id, connection_id: connectionId });
  const script = stack.emulator.store.script;
  stack.emulator.store.script = { ...script, outcome: 'manual' };
  try {
    await event('new_connection', 'demo-hello');
    await event('credential_request', 'demo-request');
    const sessionId = await verificationSession(client, onboardings, tenant, connectionId);
    await control('POST', `/sessions/${sessionId}/complete`);
    const summary = await onboardings.result(tenant, connectionId);
    const got = `${summary.endedBy} (${summary.verification?.status ?? 'no verification'})`;
    record(
      'onboarding driven by agent events through the receiver',
      'verified (succeeded)',
      JSON.stringify(summary).includes('identity') ? `${got}, with identity data` : got,
    );
  } finally {
    stack.emulator.store.script = script;
    await registry.remove(tenant, webhook.id);
  }
}

/** The session of the onboarding's verification, once it exists (the demo's person needs it). */
async function verificationSession(
  client: Client,
  onboardings: OnboardingClient,
  tenant: string,
  connectionId: string,
): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const progress = await onboardings.progress(tenant, connectionId).catch(() => undefined);
    const child = progress?.verification?.workflowId;
    const sessionId = child
      ? (
          await client.workflow
            .getHandle(child)
            .query(progressQuery)
            .catch(() => undefined)
        )?.sessionId
      : undefined;
    if (sessionId) return sessionId;
    await sleep(100);
  }
  throw new Error('the onboarding did not start its verification within 30 s');
}
