import { type Command } from './command';

const commonOptions = [
  '  -o, --output F  table (default), json or jsonl (a list: one object per line)',
  '  --json          the same as --output json',
  '  -h, --help      show this help',
];

/** Help text of one command. */
export function commandHelp(command: Command): string {
  const lines = [`Usage: idv ${command.usage}`, '', command.summary, '', 'Options:'];
  for (const [name, spec] of Object.entries(command.options)) {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` ${spec.valueName ?? 'VALUE'}` : ''}`;
    const repeat = spec.multiple ? ' (repeatable)' : '';
    lines.push(`  ${flag.padEnd(28)} ${spec.description}${repeat}`);
  }
  lines.push(...commonOptions);
  return `${lines.join('\n')}\n`;
}

/** Help text listing every command. */
export function overviewHelp(commands: readonly Command[]): string {
  const lines = ['Usage: idv <command> [options]', '', 'Commands:'];
  const width = Math.max(...commands.map((command) => command.name.length));
  for (const command of commands) lines.push(`  ${command.name.padEnd(width)}  ${command.summary}`);
  lines.push('', 'Run `idv <command> --help` for the options of a command; `idv --version` for the version.');
  return `${lines.join('\n')}\n`;
}
