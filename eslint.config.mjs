// Lint rules that keep the architecture honest (see docs/architecture.md).
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.tools/', '.data/', 'coverage/', '.dependency-cruiser.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // lint-probe.ts: the name under which test/foundation/lint-rules.test.ts lints snippets.
        projectService: { allowDefaultProject: ['*/*/lint-probe.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use an `as const` object instead of enum.' },
        { selector: 'ExportAllDeclaration', message: 'No `export *` barrels: export names explicitly.' },
      ],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox, with what it imports: the features'
    // shared modules and domain, the common helpers, the keyring's workflow and the bundle's entry.
    files: [
      '**/workflows/**/*.ts',
      '**/shared/**/*.ts',
      '**/domain/**/*.ts',
      'common/**/*.ts',
      'keyring/workflow.ts',
      'keyring/shared.ts',
      'package/workflows.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({
              name,
              message: 'Workflows are deterministic: no Node built-ins (use activities).',
            })),
            { name: 'undici', message: 'Workflows do no I/O: call an activity.' },
          ],
          patterns: [
            {
              group: ['undici/*'],
              message: 'Workflows do no I/O: call an activity.',
            },
            {
              group: [
                '**/activities',
                '**/activities/*',
                '**/keyring/activities',
                '**/api',
                '**/api/*',
                '**/emulator/*',
              ],
              allowTypeImports: true,
              message: 'Workflows may only `import type` from activities and api/.',
            },
          ],
        },
      ],
    },
  },
  {
    // The features' clients are the small library business services import: no worker, emulator,
    // dev server or command line comes with them (cli/ and workers/ are the composition roots).
    files: ['**/client/**/*.ts', 'keyring/client.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/cli',
                '**/cli/*',
                '**/workers/*',
                '**/emulator/*',
                '**/activities/*',
                '**/keyring/activities',
                'undici',
              ],
              allowTypeImports: true,
              message: 'A client is a library: no worker, emulator, activities or command line.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read raw JSON answers field by field (the OpenAPI contract checks their shapes) and
    // use jest's asymmetric matchers, which are typed `any`.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, program: null },
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
);
