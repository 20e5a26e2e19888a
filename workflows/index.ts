// The workflow bundle's entry (`idv-temporal/workflows`): every workflow the worker registers,
// and `runVerification`, which runs a verification as a child of your own workflow (import it in
// your workflow code; registering it as a workflow type of its own changes nothing).
export { runVerification } from './run-verification';
export { verificationSession } from './verification-session';
export { sessionRedaction } from './session-redaction';
export { orphanSweep } from './orphan-sweep';
export { agentWebhooks } from './agent-webhooks';
export { agentConnection } from './agent-connection';
export { onboarding } from './onboarding';
export { platformMigration } from './platform-migration';
export { keyring } from './keyring';
