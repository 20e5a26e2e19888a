import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const packageName = 'idv-temporal';

/**
 * The folder of this package's `package.json`: the repository root when run from the sources,
 * the installed package's folder when run from `dist/` inside `node_modules`. Found by walking up
 * from this file, so it holds for both layouts.
 */
export function packageRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && isThisPackage(manifest)) return dir;
    if (dirname(dir) === dir) throw new Error(`${packageName}: package.json not found above ${from}`);
  }
}

function isThisPackage(manifest: string): boolean {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === packageName;
  } catch {
    return false;
  }
}

/** This package's version, from its `package.json`. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
