/** Environment variables through which the global setup hands its resources to test files. */
export const harnessEnv = {
  temporalAddress: 'IDV_TEST_TEMPORAL_ADDRESS',
  workflowBundle: 'IDV_TEST_WORKFLOW_BUNDLE',
} as const;

/** Reads a value the global setup published; fails loudly when a test runs without it. */
export function harnessValue(name: (typeof harnessEnv)[keyof typeof harnessEnv]): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest (npm test)`);
  return value;
}
