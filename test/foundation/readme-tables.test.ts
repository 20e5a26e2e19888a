import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { commands } from '../../cli/commands/index';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The text of one `## ` section of the README. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** Every source file the project runs (the code, its scripts, benchmarks and test harness). */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

const folders = [
  'agent-platform',
  'api',
  'bin',
  'cli',
  'codec',
  'common',
  'emulator',
  'http',
  'keyring',
  'package',
  'stores',
  'verification',
  'workers',
  'scripts',
  'bench',
  'test',
];

// The documents say what is built: README's tables list every command and every variable.
describe('README tables', () => {
  it('list every command of `idv --help`', () => {
    const table = section('Command line');
    const missing = commands
      .map((command) => command.name)
      .filter((name) => !table.includes(`\`idv ${name}`));
    expect(missing).toEqual([]);
  });

  it('list every environment variable the code reads', () => {
    const table = section('Configuration');
    const read = new Map<string, string>();
    for (const folder of folders)
      for (const file of sourceFiles(join(root, folder)))
        for (const [name] of readFileSync(file, 'utf8').matchAll(
          /\b(?:IDV|BENCH|TEMPORAL)_[A-Z0-9_]*[A-Z0-9]\b/g,
        ))
          if (!read.has(name)) read.set(name, relative(root, file));
    // `TEMPORAL_TLS*` in the table stands for every TEMPORAL_TLS_… variable.
    const listed = (name: string) =>
      table.includes(`\`${name}\``) ||
      [...table.matchAll(/`([A-Z0-9_]+)\*`/g)].some(
        ([, prefix]) => prefix !== undefined && name.startsWith(prefix),
      );
    const missing = [...read].filter(([name]) => !listed(name)).map(([name, file]) => `${name} (${file})`);
    expect(read.size).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});
