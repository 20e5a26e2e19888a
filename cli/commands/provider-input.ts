import { createReadStream } from 'node:fs';
import { verificationLimits } from '../../verification/domain/verification-limits';
import { type CommandIo, type OptionSpec, UsageError } from '../command';

const limit = verificationLimits.providerInputBytes;
const limitText = `${limit / 2 ** 20} MiB`;

/** `idv verify --input-file PATH`: the provider input, off the command line. */
export const inputFileOption: OptionSpec = {
  type: 'string',
  valueName: 'PATH',
  description: `provider input from a file holding a JSON object of string fields, such as {"identityCode":"123456"}, at most ${limitText} (- reads standard input); --input overrides its fields`,
};

/** `--input key=value` entries as provider input fields; undefined when none is given. */
export function inputEntries(entries: string[]): Record<string, string> | undefined {
  if (entries.length === 0) return undefined;
  const input: Record<string, string> = {};
  for (const [index, entry] of entries.entries()) {
    const at = entry.indexOf('=');
    // Not repeated: a value typed without its key may be the person's data.
    if (at <= 0)
      throw new UsageError(`--input takes key=value: the entry #${index + 1} has no key before '='`);
    input[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return input;
}

/**
 * The provider input of `--input-file PATH` (`-`: standard input), a JSON object of string fields.
 * Refused with a {@link UsageError} naming the option and the problem, never the content (it is the
 * person's data): the file is read no further than the provider input's limit.
 */
export async function inputFile(path: string, io: Pick<CommandIo, 'stdin'>): Promise<Record<string, string>> {
  const source = path === '-' ? 'standard input' : path;
  const text = await boundedText(path === '-' ? (io.stdin ?? process.stdin) : createReadStream(path), source);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the mistake.
    throw new UsageError(`--input-file: ${source} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(
      `--input-file: ${source} must hold a JSON object of string fields, got ${kindOf(value)}`,
    );
  const fields: [string, unknown][] = Object.entries(value);
  const input: [string, string][] = [];
  for (const [index, [key, field]] of fields.entries()) {
    if (key === '')
      throw new UsageError(`--input-file: ${source} has a field without a name (field #${index + 1})`);
    if (typeof field !== 'string')
      throw new UsageError(
        `--input-file: ${source} must hold a JSON object of string fields, got ${kindOf(field)} in field #${index + 1}`,
      );
    input.push([key, field]);
  }
  // fromEntries defines each field, even one named __proto__.
  return Object.fromEntries(input);
}

async function boundedText(chunks: AsyncIterable<Uint8Array | string>, source: string): Promise<string> {
  const read: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      // Leaving the loop closes the stream: nothing past the limit is read.
      if (size > limit)
        throw new UsageError(
          `--input-file: ${source} is larger than ${limitText}, the limit of the provider input`,
        );
      read.push(bytes);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `--input-file: cannot read ${source} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(read));
  } catch {
    throw new UsageError(`--input-file: ${source} is not UTF-8 text`);
  }
  if (text.trim() === '') throw new UsageError(`--input-file: ${source} is empty`);
  return text;
}

/** What a JSON value is, never what it holds. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
