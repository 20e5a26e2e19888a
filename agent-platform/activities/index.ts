import { type AgentPlatformDeps } from './deps';
import { agentActivities } from './agent-activities';
import { inputCheckActivities } from './input-checks';
import { migrationActivities } from './migration-activities';
import { onboardingActivities } from './onboarding-activities';

/** The earlier platform's workflows' activities (registry, migration, onboarding), bound to their dependencies. */
export function agentPlatformActivities(deps: AgentPlatformDeps) {
  return {
    ...agentActivities(deps),
    ...migrationActivities(deps),
    ...onboardingActivities(deps),
    ...inputCheckActivities(),
  };
}

/** Their type, for `proxyActivities<AgentPlatformActivities>` in the earlier platform's workflows. */
export type AgentPlatformActivities = ReturnType<typeof agentPlatformActivities>;
