// The workflow bundle's entry (`idv-temporal/workflows`): every workflow the worker registers,
// and `runVerification`, which runs a verification as a child of your own workflow (import it in
// your workflow code; registering it as a workflow type of its own changes nothing).
export { runVerification } from '../verification/workflows/run-verification';
export { verificationSession } from '../verification/workflows/verification-session';
export { sessionRedaction } from '../verification/workflows/session-redaction';
export { orphanSweep } from '../verification/workflows/orphan-sweep';
export { creationClose } from '../verification/workflows/creation-close';
export { agentWebhooks } from '../agent-platform/workflows/agent-webhooks';
export { agentConnection } from '../agent-platform/workflows/agent-connection';
export { onboarding } from '../agent-platform/workflows/onboarding';
export { platformMigration } from '../agent-platform/workflows/platform-migration';
export { keyring } from '../keyring/workflow';
import type {
  CreationCloseWorkflow,
  OrphanSweepWorkflow,
  SessionRedactionWorkflow,
  VerificationSessionWorkflow,
  verificationWorkflowTypes,
} from '../verification/shared/workflows';
import type {
  AgentConnectionWorkflow,
  AgentWebhooksWorkflow,
  agentPlatformWorkflowTypes,
  OnboardingWorkflow,
  PlatformMigrationWorkflow,
} from '../agent-platform/shared/workflows';
import type { KEYRING_WORKFLOW_TYPE, KeyringWorkflow } from '../keyring/shared';

// Clients start workflows by their shared names and signatures, never by their code: these fail
// to compile when a workflow's name or signature drifts from what its clients use.
// eslint-disable-next-line @typescript-eslint/consistent-type-imports -- this module's exports, as workers register them
type Registered = typeof import('./workflows');
type Matches<Name extends keyof Registered, Signature> = [Registered[Name]] extends [Signature]
  ? true
  : false;
type AllTrue<T extends true[]> = T;
export type RegisteredAsShared = AllTrue<
  [
    Matches<(typeof verificationWorkflowTypes)['session'], VerificationSessionWorkflow>,
    Matches<(typeof verificationWorkflowTypes)['redaction'], SessionRedactionWorkflow>,
    Matches<(typeof verificationWorkflowTypes)['orphanSweep'], OrphanSweepWorkflow>,
    Matches<(typeof verificationWorkflowTypes)['creationClose'], CreationCloseWorkflow>,
    Matches<(typeof agentPlatformWorkflowTypes)['registry'], AgentWebhooksWorkflow>,
    Matches<(typeof agentPlatformWorkflowTypes)['connection'], AgentConnectionWorkflow>,
    Matches<(typeof agentPlatformWorkflowTypes)['onboarding'], OnboardingWorkflow>,
    Matches<(typeof agentPlatformWorkflowTypes)['migration'], PlatformMigrationWorkflow>,
    Matches<typeof KEYRING_WORKFLOW_TYPE, KeyringWorkflow>,
  ]
>;
