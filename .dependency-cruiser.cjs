// The architecture's import rules (docs/architecture.md, "Layout"): `npm run lint` checks them.
// Type-only imports count: a cycle through `import type` is a cycle.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        "No import cycle, type-only imports included (but the bundle entry reading its own exports' types).",
      from: {},
      to: { circular: true, pathNot: '^package/workflows\\.ts$' },
    },
    {
      name: 'shared-imports-no-feature',
      severity: 'error',
      comment: 'api, codec, stores, http, common and the emulator are shared: they import no feature folder.',
      from: { path: '^(api|codec|stores|http|common|emulator)/' },
      to: { path: '^(verification|agent-platform|keyring)/' },
    },
    {
      name: 'features-import-no-composition',
      severity: 'error',
      comment: 'Features and shared folders never import the composition roots (cli, workers, package).',
      from: { path: '^(verification|agent-platform|keyring|api|codec|stores|http|common|emulator)/' },
      to: { path: '^(cli|workers|package)/' },
    },
    {
      name: 'verification-imports-no-agent-platform',
      severity: 'error',
      comment: 'The earlier platform builds on verifications (its onboarding runs one), never the reverse.',
      from: { path: '^(verification|keyring)/' },
      to: { path: '^agent-platform/' },
    },
    {
      name: 'keyring-imports-no-feature',
      severity: 'error',
      comment: 'The keyring serves both features and imports neither.',
      from: { path: '^keyring/' },
      to: { path: '^(verification|agent-platform)/' },
    },
    {
      name: 'workflow-code-loaded-by-workflows-and-workers-only',
      severity: 'error',
      comment:
        'Workflow code is loaded at run time only by other workflow code and the workers: a client, an activity or a shared module names workflows by their shared definitions, so no client reaches workflow code, directly or through another module.',
      from: { pathNot: '(/workflows/|^keyring/workflow\\.ts$|^package/workflows\\.ts$|^workers/)' },
      to: {
        path: '(/workflows/|^keyring/workflow\\.ts$|^package/workflows\\.ts$)',
        dependencyTypesNot: ['type-only'],
      },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test|bench|scripts)/' },
  },
};
