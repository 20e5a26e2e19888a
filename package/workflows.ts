// The workflow bundle's entry (`idv-temporal/workflows`): every workflow the worker registers,
// and `runVerification`, which runs a verification as a child of your own workflow (import it in
// your workflow code; registering it as a workflow type of its own changes nothing).
import { runVerification } from '../verification/workflows/run-verification';
import { verificationSession } from '../verification/workflows/verification-session';
import { sessionRedaction } from '../verification/workflows/session-redaction';
import { orphanSweep } from '../verification/workflows/orphan-sweep';
import { agentWebhooks } from '../agent-platform/workflows/agent-webhooks';
import { agentConnection } from '../agent-platform/workflows/agent-connection';
import { onboarding } from '../agent-platform/workflows/onboarding';
import { platformMigration } from '../agent-platform/workflows/platform-migration';
import { keyring } from '../keyring/workflow';
import type {
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

// The workflows workers register by name (a value only for its type below).
const _registered = {
  verificationSession,
  sessionRedaction,
  orphanSweep,
  agentWebhooks,
  agentConnection,
  onboarding,
  platformMigration,
  keyring,
};

export {
  runVerification,
  verificationSession,
  sessionRedaction,
  orphanSweep,
  agentWebhooks,
  agentConnection,
  onboarding,
  platformMigration,
  keyring,
};

// Clients start workflows by their shared names and signatures, never by their code: these fail
// to compile when a workflow's name or signature drifts from what its clients use.
type Registered = typeof _registered;
type Matches<Name extends keyof Registered, Signature> = [Registered[Name]] extends [Signature]
  ? true
  : false;
type AllTrue<T extends true[]> = T;
export type RegisteredAsShared = AllTrue<
  [
    Matches<(typeof verificationWorkflowTypes)['session'], VerificationSessionWorkflow>,
    Matches<(typeof verificationWorkflowTypes)['redaction'], SessionRedactionWorkflow>,
    Matches<(typeof verificationWorkflowTypes)['orphanSweep'], OrphanSweepWorkflow>,
    Matches<(typeof agentPlatformWorkflowTypes)['registry'], AgentWebhooksWorkflow>,
    Matches<(typeof agentPlatformWorkflowTypes)['connection'], AgentConnectionWorkflow>,
    Matches<(typeof agentPlatformWorkflowTypes)['onboarding'], OnboardingWorkflow>,
    Matches<(typeof agentPlatformWorkflowTypes)['migration'], PlatformMigrationWorkflow>,
    Matches<typeof KEYRING_WORKFLOW_TYPE, KeyringWorkflow>,
  ]
>;
