import { type ActivityDeps } from './deps';
import { agentActivities } from './agent-activities';
import { cleanupActivities } from './cleanup-activities';
import { keyringActivities } from './keyring-activities';
import { migrationActivities } from './migration-activities';
import { onboardingActivities } from './onboarding-activities';
import { pollingActivities } from './polling-activities';
import { resultActivities } from './result-activities';
import { sessionActivities } from './session-activities';

/** Every activity of the workflows (verifications, webhook registry), bound to their dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...sessionActivities(deps),
    ...pollingActivities(deps),
    ...resultActivities(deps),
    ...cleanupActivities(deps),
    ...keyringActivities(deps),
    ...agentActivities(deps),
    ...migrationActivities(deps),
    ...onboardingActivities(deps),
  };
}

/** The activities' type, for `proxyActivities<VerificationActivities>` in workflows. */
export type VerificationActivities = ReturnType<typeof createActivities>;
