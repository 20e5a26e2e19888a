import { ApplicationFailure } from '@temporalio/common';
import {
  InvalidOnboardingInputError,
  type OnboardingVerification,
  onboardingVerificationRequest,
} from '../domain/onboarding';
import { type VerificationInput } from '../domain/verification';
import { type ActivityDeps } from './deps';
import { classified } from './failures';

/** What {@link onboardingActivities}' `prepareOnboardingVerification` takes. */
export interface OnboardingVerificationRequest {
  tenant: string;
  connectionId: string;
  verification: OnboardingVerification;
}

/** The onboarding's activity: its verification's input, prepared as a client start would. */
export function onboardingActivities(deps: ActivityDeps) {
  return {
    /**
     * The verification's input: validated, reference `onboarding-verification:<tenant>-<connectionId>`,
     * data key created (the redaction destroys it). A retry after a lost answer leaves an unused
     * key behind, as a client's retried start would; never a second verification.
     */
    async prepareOnboardingVerification(request: OnboardingVerificationRequest): Promise<VerificationInput> {
      let parsed: ReturnType<typeof onboardingVerificationRequest>;
      try {
        parsed = onboardingVerificationRequest(request.tenant, request.connectionId, request.verification);
      } catch (error) {
        // Classified once, here: no retry makes invalid settings valid.
        if (error instanceof InvalidOnboardingInputError)
          throw ApplicationFailure.create({
            type: 'InvalidOnboardingInput',
            message: error.message,
            nonRetryable: true,
          });
        throw error;
      }
      const dataKeyId = await classified(() => deps.dataKeys.create());
      return { ...parsed, dataKeyId };
    },
  };
}
