import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command } from './command';

/** What the command manifest (written at build time) says of one command. */
export type ManifestEntry = Pick<
  Command,
  'name' | 'summary' | 'usage' | 'options' | 'stopsGracefully' | 'takesArguments'
> & {
  /** The compiled module that defines it, relative to the manifest, and its export's name. */
  module: string;
  exportName: string;
};

/** The manifest's file name, next to the compiled `main.js`. */
export const MANIFEST = 'commands.json';

/**
 * The commands of the manifest in `dir`, each loading its module only when it runs (help needs
 * none of them: `idv --help` starts without Temporal's SDK); undefined when there is no manifest
 * (run from the sources).
 */
export function lazyCommands(dir: string): Command[] | undefined {
  const path = join(dir, MANIFEST);
  if (!existsSync(path)) return undefined;
  const entries = JSON.parse(readFileSync(path, 'utf8')) as ManifestEntry[];
  return entries.map((entry) => {
    let loaded: Command | undefined;
    const load = (): Command => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use, by design
      loaded ??= (require(join(dir, entry.module)) as Record<string, Command>)[entry.exportName];
      if (!loaded) throw new Error(`idv: the build's ${MANIFEST} names a missing command ${entry.name}`);
      return loaded;
    };
    const { module: _module, exportName: _exportName, ...spec } = entry;
    return {
      ...spec,
      metrics: (args, env) => load().metrics?.(args, env),
      run: (args, io) => load().run(args, io),
    };
  });
}
