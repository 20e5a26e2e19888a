// The single workflow bundle of a test run: product workflows and test fixtures.
export {
  verificationSession,
  sessionRedaction,
  orphanSweep,
  agentWebhooks,
  agentConnection,
  onboarding,
  platformMigration,
  keyring,
} from '../../workflows/index';
export { sleepThenReport, greetThroughActivity } from '../fixtures/foundation-workflows';
export { onboardingFixture } from '../fixtures/parent-workflows';
