import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentPlatformActivities } from '../activities/index';
import { retry } from '../../verification/workflows/activity-proxies';

/** The webhook registry's calls to the earlier platform: an update waits for them, so they are short. */
export const agentCalls = proxyActivities<AgentPlatformActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry,
});

/** Input checks, as the verification's (`inputChecks`): pure, local, three attempts. */
export const agentInputChecks = proxyLocalActivities<AgentPlatformActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { ...retry, maximumAttempts: 3 },
});
