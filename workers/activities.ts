import { type AgentPlatformDeps } from '../agent-platform/activities/deps';
import { agentPlatformActivities } from '../agent-platform/activities/index';
import { type KeyringDeps, keyringActivities } from '../keyring/activities';
import { type VerificationDeps } from '../verification/activities/deps';
import { verificationActivities } from '../verification/activities/index';

/** What a worker's activities need, every feature's together. */
export type ActivityDeps = VerificationDeps & AgentPlatformDeps & KeyringDeps;

/** Every activity a worker registers: the verifications', the earlier platform's, the keyring's. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...verificationActivities(deps),
    ...agentPlatformActivities(deps),
    ...keyringActivities(deps),
  };
}
