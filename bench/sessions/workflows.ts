// The benchmark's workflow bundle: the product workflow and two yardsticks.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { VerificationActivities } from '../../verification/activities/index';
import { type VerificationInput } from '../../verification/domain/verification';

export { verificationSession, sessionRedaction, keyring } from '../../package/workflows';

const { createSession, checkSession } = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '1 minute',
});
const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '1 minute' });

/** The ceiling: one trivial activity per workflow. */
export async function bareWorkflow(): Promise<void> {
  await noop();
}

/** What the service's own samples do: create, then GetSession every 2 seconds until done. */
export async function fixedPollingSession(
  input: VerificationInput,
): Promise<{ sessionId: string; status: string; polls: number; knownAt: number }> {
  const { sessionId } = await createSession(input);
  for (let polls = 1; ; polls += 1) {
    await sleep('2 seconds');
    const state = await checkSession(sessionId);
    if (state.done) return { sessionId, status: state.status, polls, knownAt: Date.now() };
  }
}
