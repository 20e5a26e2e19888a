// The single workflow bundle of a test run: product workflows and test fixtures.
export { sleepThenReport, greetThroughActivity } from '../fixtures/foundation-workflows';
