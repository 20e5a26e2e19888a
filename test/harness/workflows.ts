// The single workflow bundle of a test run: the product's bundle entry whole, and test fixtures.
// eslint-disable-next-line no-restricted-syntax -- every product workflow, by the product's one list
export * from '../../package/workflows';
export { sleepThenReport, greetThroughActivity } from '../fixtures/foundation-workflows';
export { endingListener, onboardingFixture } from '../fixtures/parent-workflows';
