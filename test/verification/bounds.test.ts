import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  InvalidVerificationRequestError,
  parseVerificationRequest,
} from '../../verification/client/parse-request';
import { verificationSession } from '../../verification/workflows/verification-session';
import { useVerificationStack } from '../harness/verification-stack';

// Durations are bounded where they enter, and the workflow refuses out-of-bounds input that
// bypassed the client instead of failing its task forever.
describe('verification input bounds', () => {
  const stack = useVerificationStack();

  it.each([
    ['timeout', 1e16],
    ['timeout', '99999999d'],
    ['timeout', '0s'],
    ['redactAfter', '99999999d'],
  ])('refuses %s %p naming the field and its bounds', (field, value) => {
    const error: unknown = (() => {
      try {
        return parseVerificationRequest({ ...stack().request(), [field]: value });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidVerificationRequestError);
    expect(Object.keys((error as InvalidVerificationRequestError).errors)).toEqual([field]);
    expect((error as Error).message).toMatch(/at (least|most)/);
  });

  it('fails a workflow started with out-of-bounds input at once (never a stuck task)', async () => {
    const input = { ...(await stack().prepare(stack().request())), timeout: 1e16 };
    const error: unknown = await stack()
      .client.workflow.execute(verificationSession, {
        taskQueue: stack().taskQueue,
        workflowId: `idv-${input.reference}`,
        args: [input],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('InvalidVerificationInput');
    expect((cause as ApplicationFailure).message).toMatch(/timeout/);
  }, 30_000);
});
