import { WorkflowNotFoundError } from '@temporalio/client';
import { type Command, CommandFailedError, UsageError } from '../command';
import { connectTemporal } from '../connect';
import { printJson } from '../output';

/** `idv keyring [rotate]`: the keyring's state (ids only), or a rotation now. */
export const keyringCommand: Command = {
  name: 'keyring',
  takesArguments: true,
  summary: 'Show the keyring (key ids, last and next rotation), or rotate it now',
  usage: 'keyring [rotate] [--json]',
  options: {},
  async run({ positionals, values }, io) {
    const [action, ...extra] = positionals;
    if (extra.length > 0 || (action !== undefined && action !== 'rotate'))
      throw new UsageError(
        `unexpected argument '${extra[0] ?? action}': idv keyring shows, idv keyring rotate rotates`,
      );
    const connected = await connectTemporal(io.env);
    try {
      await connected.idv.keyringStatus().catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError)
          throw new CommandFailedError(
            `no keyring runs on task queue '${connected.idv.taskQueue}' yet: the first verification started there starts it`,
          );
        throw error;
      });
      if (action === 'rotate') {
        const { requestedAt } = await connected.idv.rotateKeys();
        const { workflowId } = await connected.idv.keyringStatus();
        if (values.json === true) printJson(io, { workflowId, rotationRequested: true, requestedAt });
        else
          io.stdout.write(
            `${workflowId}: rotating. Keys erased before ${requestedAt} (this machine's clock) are gone from every copy of the store once \`idv keyring\` shows a last rotation started after that time and completed, and its earlier runs deleted (one under way now does not count)\n`,
          );
        return 0;
      }
      const status = await connected.idv.keyringStatus();
      if (values.json === true) printJson(io, status);
      else
        io.stdout.write(
          [
            `${status.workflowId}: ${status.keyIds.length} key(s), current ${status.keyIds.at(-1) ?? '-'}`,
            `  last rotation: ${status.lastRotation ? `${status.lastRotation.startedAt} to ${status.lastRotation.completedAt}` : 'none yet'}`,
            `  next rotation: ${status.nextRotationAt}`,
            ...(status.earlierRunsDeleted === undefined
              ? []
              : [
                  `  earlier runs (retired keys): ${status.earlierRunsDeleted ? 'deleted' : 'not deleted yet'}`,
                ]),
            ...(status.attention ? [`  attention: ${status.attention}`] : []),
            '',
          ].join('\n'),
        );
      return 0;
    } finally {
      await connected.close();
    }
  },
};
