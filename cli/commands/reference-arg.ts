import { referenceSchema } from '../../verification/domain/verification';
import { type CommandArgs, UsageError } from '../command';

/** The single `<reference>` positional of a command, validated. */
export function referenceArg(args: CommandArgs, command: string): string {
  const [reference, ...extra] = args.positionals;
  if (!reference) throw new UsageError(`idv ${command} needs a <reference> (see idv ${command} --help)`);
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const parsed = referenceSchema.safeParse(reference);
  if (!parsed.success) throw new UsageError(`reference ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  return reference;
}
