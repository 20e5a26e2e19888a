// The workflow bundle's entry: every workflow the worker registers.
export { verificationSession } from './verification-session';
export { sessionRedaction } from './session-redaction';
export { orphanSweep } from './orphan-sweep';
export { agentWebhooks } from './agent-webhooks';
export { agentConnection } from './agent-connection';
export { onboarding } from './onboarding';
export { platformMigration } from './platform-migration';
