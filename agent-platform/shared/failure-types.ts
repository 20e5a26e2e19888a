/** The failure type of an onboarding whose connection's verification has run already (stable API). */
export const ONBOARDING_ALREADY_VERIFIED = 'OnboardingAlreadyVerified';

/**
 * The failure type of a change a webhook registry refused because it is moving to its next run
 * (its history is full); the registry's client sends it again, and the next run takes it.
 */
export const REGISTRY_MOVING_ON = 'WebhookRegistryMovingOn';
