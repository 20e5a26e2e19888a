import { type VerificationDeps } from './deps';
import { cleanupActivities } from './cleanup-activities';
import { inputCheckActivities } from './input-checks';
import { pollingActivities } from './polling-activities';
import { resultActivities } from './result-activities';
import { sessionActivities } from './session-activities';

/** The verification workflows' activities, bound to their dependencies. */
export function verificationActivities(deps: VerificationDeps) {
  return {
    ...sessionActivities(deps),
    ...pollingActivities(deps),
    ...resultActivities(deps),
    ...cleanupActivities(deps),
    ...inputCheckActivities(),
  };
}

/** Their type, for `proxyActivities<VerificationActivities>` in the verification workflows. */
export type VerificationActivities = ReturnType<typeof verificationActivities>;
