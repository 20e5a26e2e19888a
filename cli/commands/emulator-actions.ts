import { emulatorControl } from '../../emulator/control-client';
import { noStackReason, readStackState } from '../../workers/dev/stack-file';
import { type CommandArgs, type CommandIo, CommandFailedError, UsageError } from '../command';
import { commandConfig } from '../connect';
import { printJson } from '../output';
import { stringOption } from '../parse-values';

const actions = ['complete', 'fail'] as const;

/**
 * `idv emulator complete|fail <sessionId> [--error-code C]`: the running stack's simulated user
 * finishes a session (successfully, or with an error code; default `Other`).
 */
export async function runEmulatorAction(
  { positionals, values }: CommandArgs,
  io: CommandIo,
): Promise<number> {
  const [action, sessionId, ...extra] = positionals;
  if (!actions.includes(action as (typeof actions)[number]))
    throw new UsageError(`idv emulator takes ${actions.join(' or ')} <sessionId>, got '${action}'`);
  if (!sessionId) throw new UsageError(`idv emulator ${action} needs a <sessionId>`);
  if (extra[0] !== undefined) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const config = commandConfig(io.env);
  const state = await readStackState(config.dataDir);
  const controlUrl = state.live?.emulator?.controlUrl;
  if (!controlUrl) throw new CommandFailedError(`${noStackReason(config.dataDir, state)}: start \`idv dev\``);
  const errorCode = stringOption(values, 'error-code');
  let session: Record<string, unknown>;
  try {
    session = await emulatorControl(controlUrl)(
      'POST',
      `/sessions/${encodeURIComponent(sessionId)}/${action}`,
      action === 'fail' && errorCode ? { errorCode } : {},
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes(': 404 '))
      throw new CommandFailedError(`the emulator knows no session ${sessionId}`);
    if (message.includes(': 400 ')) throw new CommandFailedError(`'${sessionId}' is not a session id`);
    throw new CommandFailedError(`the emulator refused: ${message.split('\n')[0]}`);
  }
  if (values.json === true) printJson(io, session);
  else
    io.stdout.write(
      `session ${sessionId}: ${action === 'complete' ? 'completed' : 'failed'} by the simulated user\n`,
    );
  return 0;
}
