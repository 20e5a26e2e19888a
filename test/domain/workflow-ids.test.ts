import { isReportableWorkflowId, referenceOfWorkflowId } from '../../common/workflow-ids';
import { connectionIdSchema, onboardingWorkflowId } from '../../agent-platform/domain/agent-deliveries';
import { tenantSchema } from '../../agent-platform/domain/tenant-schema';
import { onboardingReference } from '../../agent-platform/domain/onboarding';
import { verificationWorkflowId } from '../../verification/shared/ids';

// An onboarding's verification takes the reference `onboarding-verification:<tenant>:<connection>`,
// inside the onboarding kind's prefix (so no business reference can take it).
describe("an onboarding's verification and the workflow ID rules", () => {
  it('is parsed back to its reference (idv list shows references; idv status <reference> finds it)', () => {
    const reference = onboardingReference('acme', 'c1');
    expect(referenceOfWorkflowId(verificationWorkflowId(reference))).toBe(reference);
  });

  it('never has the workflow ID of an onboarding', () => {
    // A connection id may hold a colon; the one tenant whose onboardings would collide is refused.
    expect(connectionIdSchema.safeParse('acme:c1').success).toBe(true);
    expect(tenantSchema.safeParse('verification').success).toBe(false);
    for (const tenant of ['verification.x', 'verifications', 'acme'])
      expect(onboardingWorkflowId(tenant, 'acme:c1')).not.toBe(
        verificationWorkflowId(onboardingReference('acme', 'c1')),
      );
  });
});

// A signal to a workflow ID Temporal refuses fails the signalling workflow's task at every retry.
describe('a workflow ID a verification reports to', () => {
  it.each([
    ['a workflow ID', 'idv-onboarding-acme:c1', true],
    ['1,000 bytes', 'a'.repeat(1000), true],
    ['empty', '', false],
    ['with a space', 'a b', false],
    ['over 1,000 bytes in fewer characters', 'é'.repeat(501), false],
    ['not a string', 42, false],
  ])('%s: %p', (_what, value, reportable) => {
    expect(isReportableWorkflowId(value)).toBe(reportable);
  });
});
