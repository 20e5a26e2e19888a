import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const file = join(__dirname, '..', '..', 'docs', 'benchmarks.md');
const header =
  '# Benchmarks\n\nFigures written by `npm run bench:<name>` (one section each), `npm run chaos`, and `npm run bench` (http, emulator, sessions, attachments, receiver, scale and instant in turn) on the project machine (2 cores, 24 GiB). Each section is replaced when its benchmark runs again and says its own command, date and machine.\n';

/** Replaces (or appends) the section `id` of docs/benchmarks.md with `markdown`. */
export function recordSection(id: string, markdown: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : header;
  const begin = `<!-- bench:${id}:begin -->`;
  const end = `<!-- bench:${id}:end -->`;
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  const start = current.indexOf(begin);
  const stop = current.indexOf(end);
  const next =
    start >= 0 && stop > start
      ? current.slice(0, start) + block + current.slice(stop + end.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}
