/** The failure type of an onboarding whose connection's verification has run already (stable API). */
export const ONBOARDING_ALREADY_VERIFIED = 'OnboardingAlreadyVerified';
