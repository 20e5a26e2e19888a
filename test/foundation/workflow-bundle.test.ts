import { readFileSync } from 'node:fs';
import { harnessEnv, harnessValue } from '../harness/env';

// Every workflow a worker creates or replays evaluates the modules of the bundle's entry in its
// own module scope: zod's library and the schemas built with it cost milliseconds of the
// worker's single workflow thread and megabytes of its heap each time. Inputs are checked by
// local activities instead, with the clients' schemas.
describe('the workflow bundle', () => {
  const code = readFileSync(harnessValue(harnessEnv.workflowBundle), 'utf8');
  const modules = [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((match) => match[1] ?? '');

  it('lists the modules it holds (the check below reads them)', () => {
    expect(modules).toContain('./verification/workflows/verification-session.ts');
  });

  it('holds no zod, so no workflow evaluates it', () => {
    expect(modules.filter((path) => path.includes('node_modules/zod/'))).toEqual([]);
  });
});
