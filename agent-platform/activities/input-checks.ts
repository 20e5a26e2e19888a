import { carriedOnboardingInputProblems, onboardingInputProblems } from '../domain/onboarding';

/**
 * The onboarding's input check, run as a local activity: its schema is the client's (one source),
 * and zod stays out of the workflow sandbox (see the verification's).
 */
export function inputCheckActivities() {
  return {
    /** Every problem of an onboarding's input, one line each; empty when valid. */
    checkOnboardingInput(input: unknown): Promise<string[]> {
      return Promise.resolve(onboardingInputProblems(input));
    },
    /** As `checkOnboardingInput`, for a run continued from another: its verification's rules are not checked again. */
    checkCarriedOnboardingInput(input: unknown): Promise<string[]> {
      return Promise.resolve(carriedOnboardingInputProblems(input));
    },
  };
}
