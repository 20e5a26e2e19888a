import { onboardingInputProblems, onboardingReference } from '../../agent-platform/domain/onboarding';
import { referenceArg } from '../../cli/commands/reference-arg';
import { referenceOfWorkflowId } from '../../common/workflow-ids';
import { verificationWorkflowId } from '../../verification/shared/ids';

// An onboarding's verification is a verification by its ID: `idv list` shows its reference and
// `idv status|watch|redact|cancel <reference>` find it, whatever its platform ids look like (the
// personal-data heuristic guards only references a business types for a new verification).
describe("an onboarding's verification addressed by the CLI", () => {
  const cases: Array<[string, string]> = [
    ['acme-bank', 'conn-20250131'],
    ['northwind', 'cx-2024-03-15-7'],
  ];

  it.each(cases)(
    'tenant %s, connection %s: started, listed and addressed by its reference',
    (tenant, connectionId) => {
      const reference = onboardingReference(tenant, connectionId);
      // The onboarding takes them, and its verification's ID is listed under this reference.
      expect(
        onboardingInputProblems({
          tenant,
          connectionId,
          verification: {
            verificationProfileId: '3f2b8c1e-9d4a-4b7e-8f10-2a6c5d9e7b31',
            provider: 'yoti',
            capabilities: ['PollResult'],
          },
        }),
      ).toEqual([]);
      expect(referenceOfWorkflowId(verificationWorkflowId(reference))).toBe(reference);
      // `idv status <reference>` and `idv redact <reference>` accept what `idv list` showed.
      const problems = ['status', 'redact'].map((command) => {
        try {
          return referenceArg({ positionals: [reference], values: {} }, command);
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      });
      expect(problems).toEqual([reference, reference]);
    },
  );
});
