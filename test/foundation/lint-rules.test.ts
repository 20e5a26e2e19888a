import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

// ESLint's flat config is ESM, which jest's CommonJS sandbox cannot load: lint in a child
// process with the project's real config, all snippets in one run.
const linter = `
const { ESLint } = await import('eslint');
const eslint = new ESLint({ cwd: process.cwd() });
const snippets = JSON.parse(process.argv[1]);
const out = [];
for (const { filePath, source } of snippets) {
  const [report] = await eslint.lintText(source, { filePath });
  out.push(report.messages.map(({ ruleId, message }) => ({ ruleId, message })));
}
process.stdout.write(JSON.stringify(out));
`;

const probes = {
  builtinAndUndici: {
    filePath: 'verification/workflows/lint-probe.ts',
    source:
      "import { readFileSync } from 'node:fs';\nimport { request } from 'undici';\nexport const used = [readFileSync, request];\n",
  },
  valueImportOfActivities: {
    filePath: 'verification/workflows/lint-probe.ts',
    source: "import * as acts from '../activities/x';\nexport const a = acts;\n",
  },
  typeImportOfActivities: {
    filePath: 'verification/workflows/lint-probe.ts',
    source: "import type * as acts from '../activities/x';\nexport type A = typeof acts;\n",
  },
  builtinOutsideWorkflows: {
    filePath: 'verification/activities/lint-probe.ts',
    source: "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
  },
  floatingPromise: {
    filePath: 'verification/activities/lint-probe.ts',
    source: 'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n',
  },
};

type ProbeName = keyof typeof probes;

function lintAll(): Record<ProbeName, LintMessage[]> {
  const names = Object.keys(probes) as ProbeName[];
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', linter, JSON.stringify(names.map((name) => probes[name]))],
    { cwd: root, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`eslint failed: ${run.stderr}`);
  const results = JSON.parse(run.stdout) as LintMessage[][];
  return Object.fromEntries(names.map((name, i) => [name, results[i] ?? []])) as Record<
    ProbeName,
    LintMessage[]
  >;
}

const restricted = (messages: LintMessage[]) =>
  messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);

describe('lint rules that keep workflows deterministic', () => {
  let results: Record<ProbeName, LintMessage[]>;
  beforeAll(() => {
    results = lintAll();
  });

  it('rejects a Node built-in and undici imported by a workflow', () => {
    expect(restricted(results.builtinAndUndici)).toEqual([
      expect.stringContaining("'node:fs'"),
      expect.stringContaining("'undici'"),
    ]);
  });

  it('rejects a value import of activities in a workflow', () => {
    expect(restricted(results.valueImportOfActivities)).toEqual([expect.stringContaining('import type')]);
  });

  it('accepts a type-only import of activities in a workflow', () => {
    expect(restricted(results.typeImportOfActivities)).toEqual([]);
  });

  it('allows Node built-ins outside workflows', () => {
    expect(restricted(results.builtinOutsideWorkflows)).toEqual([]);
  });

  it('reports a floating promise', () => {
    expect(results.floatingPromise.map((m) => m.ruleId)).toContain('@typescript-eslint/no-floating-promises');
  });
});
