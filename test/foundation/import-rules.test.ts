import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(__dirname, '..', '..');

/** A small tree laid out as the project is, each file breaking (or keeping) one import rule. */
const tree: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'node16', moduleResolution: 'node16', strict: true },
  }),
  'verification/workflows/w.ts': 'export function run(): void {}\nexport type W = number;\n',
  'verification/client/runtime.ts': "import { run } from '../workflows/w';\nexport const x = run;\n",
  'verification/client/types.ts': "import type { W } from '../workflows/w';\nexport type Y = W;\n",
  'verification/shared/s.ts': 'export type S = 1;\n',
  'common/c.ts': "import type { S } from '../verification/shared/s';\nexport type C = S;\n",
  'agent-platform/p.ts': 'export const p = 1;\n',
  'verification/v.ts': "import { p } from '../agent-platform/p';\nexport const v = p;\n",
  'keyring/k1.ts': "import type { K2 } from './k2';\nexport type K1 = { next?: K2 };\n",
  'keyring/k2.ts': "import type { K1 } from './k1';\nexport type K2 = { next?: K1 };\n",
  'stores/s.ts': "import { helper } from '../workers/w';\nexport const s = helper;\n",
  'workers/w.ts': 'export const helper = 1;\n',
  // The package's client entry loading the bundle's entry (every workflow) at run time.
  'package/workflows.ts': "export { run } from '../verification/workflows/w';\n",
  'package/client.ts': "import { run } from './workflows';\nexport const z = run;\n",
  // A client reaching workflow code through its feature's shared module.
  'verification/shared/defs.ts': "export { run } from '../workflows/w';\n",
  'verification/client/indirect.ts': "import { run } from '../shared/defs';\nexport const y = run;\n",
};

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The violations the project's own configuration finds in that tree. */
function violations(): Violation[] {
  const dir = mkdtempSync(join(tmpdir(), 'idv-import-rules-'));
  try {
    for (const [path, source] of Object.entries(tree)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), source);
    }
    cpSync(join(root, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    const run = spawnSync(
      join(root, 'node_modules', '.bin', 'depcruise'),
      ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', '.'],
      { cwd: dir, encoding: 'utf8' },
    );
    if (!run.stdout) throw new Error(`depcruise failed: ${run.stderr}`);
    return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The architecture's import rules (.dependency-cruiser.cjs), run by `npm run lint`: each fires.
describe('import rules', () => {
  let found: Violation[];
  beforeAll(() => {
    found = violations();
  });
  const named = (rule: string) => found.filter((violation) => violation.rule.name === rule);

  it('refuse a cycle made of type-only imports', () => {
    expect(named('no-circular').map((v) => v.from)).toEqual(expect.arrayContaining(['keyring/k1.ts']));
  });

  it('refuse a shared folder importing a feature, even a type', () => {
    expect(named('shared-imports-no-feature')).toEqual([
      expect.objectContaining({ from: 'common/c.ts', to: 'verification/shared/s.ts' }),
    ]);
  });

  it('refuse anything but workflows and workers loading workflow code at run time, and let a client import a workflow type', () => {
    expect(
      named('workflow-code-loaded-by-workflows-and-workers-only')
        .map((v) => v.from)
        .sort(),
    ).toEqual(['package/client.ts', 'verification/client/runtime.ts', 'verification/shared/defs.ts']);
  });

  it('refuse verifications importing the earlier platform', () => {
    expect(named('verification-imports-no-agent-platform')).toEqual([
      expect.objectContaining({ from: 'verification/v.ts' }),
    ]);
  });

  it('refuse a shared folder importing a composition root', () => {
    expect(named('features-import-no-composition')).toEqual([
      expect.objectContaining({ from: 'stores/s.ts', to: 'workers/w.ts' }),
    ]);
  });
});
