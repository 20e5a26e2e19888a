import { join } from 'node:path';

/**
 * Node arguments that run the `idv` command line from the TypeScript sources (through tsx), so a
 * test exercises the code as it is now, never a stale `dist/`. The compiled binary
 * (`bin/idv.js`) is exercised by the package check (`npm run check:package`).
 */
export function idvArgs(...args: string[]): string[] {
  return ['--require', require.resolve('tsx/cjs'), join(__dirname, '..', '..', 'cli', 'main.ts'), ...args];
}
