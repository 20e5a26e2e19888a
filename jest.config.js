/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  setupFiles: ['<rootDir>/test/harness/quiet-runtime.ts'],
  testTimeout: 60_000,
  // Most suites wait on Temporal's timers and the emulator more than they compute: with 3 workers
  // the 2 cores were 70 % idle through the run (994 s); with 5, 13 % (730 s), and a child
  // process's start outran its test's bound.
  maxWorkers: 4,
};
