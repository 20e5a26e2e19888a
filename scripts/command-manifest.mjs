#!/usr/bin/env node
// Writes dist/cli/commands.json after the build: each command's name, help and options, and the
// compiled module that defines it, so the `idv` binary shows help and picks a command without
// loading every command's dependencies (Temporal's SDK, the store drivers) first.
import { readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const cliDir = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'dist', 'cli');
const { commands } = require(join(cliDir, 'commands', 'index.js'));
const where = new Map();
for (const file of readdirSync(join(cliDir, 'commands')).filter((name) => name.endsWith('.js'))) {
  for (const [exportName, value] of Object.entries(require(join(cliDir, 'commands', file)))) {
    if (commands.includes(value) && !where.has(value))
      where.set(value, { module: `commands/${file}`, exportName });
  }
}
const manifest = commands.map((command) => {
  const found = where.get(command);
  if (!found) throw new Error(`command ${command.name} is not exported by a module of dist/cli/commands`);
  return {
    name: command.name,
    summary: command.summary,
    usage: command.usage,
    options: command.options,
    ...(command.stopsGracefully ? { stopsGracefully: true } : {}),
    ...(command.takesArguments ? { takesArguments: true } : {}),
    ...found,
  };
});
writeFileSync(join(cliDir, 'commands.json'), `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`[command-manifest] ${manifest.length} commands\n`);
process.exit(0);
