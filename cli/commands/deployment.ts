import { type Command, CommandFailedError, UsageError } from '../command';
import { commandConfig, connectTemporal } from '../connect';
import { printJson, tableLines } from '../output';
import {
  adoptPinnedWork,
  type BuildStatus,
  DeploymentError,
  deploymentStatus,
  promoteBuild,
} from '../../workers/deployment';

/** What to do about a build whose pinned work has no worker: said after the table. */
function strandedLine(build: BuildStatus): string {
  return `build ${build.buildId}: ${build.pinnedRunning} pinned workflows wait and none of its workers polls: start its workers again, or move that work onto the current build with \`idv deployment adopt ${build.buildId}\``;
}

/**
 * `idv deployment [promote <build> | adopt <build>]`: the deployment's builds, a build made
 * current, or a build's pinned work moved onto the current one.
 */
export const deploymentCommand: Command = {
  name: 'deployment',
  takesArguments: true,
  summary:
    "Show the deployment's builds (current, draining, drained), the pinned work each still runs and its workers (exit 1 when pinned work has none), make a build current, or move a build's pinned work onto the current one",
  usage: 'deployment [promote <build-id> | adopt <build-id>] [--json]',
  options: {},
  async run({ positionals, values }, io) {
    const [action, buildId, ...extra] = positionals;
    if (extra.length > 0 || (action !== undefined && action !== 'promote' && action !== 'adopt'))
      throw new UsageError(
        `unexpected argument '${extra[0] ?? action}': idv deployment shows, idv deployment promote <build-id> promotes, idv deployment adopt <build-id> moves its pinned work onto the current build`,
      );
    if (action !== undefined && !buildId) throw new UsageError(`idv deployment ${action} needs a build id`);
    const { deployment } = commandConfig(io.env);
    const connected = await connectTemporal(io.env);
    try {
      const { client } = connected.idv;
      if (action === 'promote') {
        const result = await promoteBuild(client, { name: deployment.name, buildId: buildId as string });
        if (values.json === true) printJson(io, { deployment: deployment.name, buildId, result });
        else
          io.stdout.write(
            `${deployment.name}: build ${buildId} ${result === 'promoted' ? 'is current now' : result}\n`,
          );
        return 0;
      }
      const status = await deploymentStatus(client, deployment.name);
      if (action === 'adopt') {
        const current = status.currentBuildId;
        if (!current)
          throw new CommandFailedError(`${deployment.name} has no current build to move work onto`);
        if (current === buildId)
          throw new UsageError(
            `build ${buildId} is the current one: adopt moves another build's pinned work onto it`,
          );
        const moved = await adoptPinnedWork(
          client,
          { name: deployment.name, buildId: current },
          { fromBuildId: buildId as string },
        );
        if (values.json === true)
          printJson(io, { deployment: deployment.name, from: buildId, to: current, moved });
        else
          io.stdout.write(
            `${deployment.name}: ${moved} pinned workflows of build ${buildId} moved onto ${current}\n`,
          );
        return 0;
      }
      const stranded = status.builds.filter((build) => build.stranded);
      if (values.json === true) printJson(io, status);
      else if (status.builds.length === 0) io.stdout.write(`${deployment.name}: no build has run yet\n`);
      else
        io.stdout.write(
          `${[
            ...tableLines(
              ['BUILD', 'STATUS', 'PINNED RUNNING', 'WORKERS'],
              status.builds.map((build) => [
                build.buildId,
                build.status,
                String(build.pinnedRunning),
                String(build.workersPolling),
              ]),
            ),
            ...stranded.map(strandedLine),
          ].join('\n')}\n`,
        );
      return stranded.length > 0 ? 1 : 0;
    } catch (error) {
      if (error instanceof DeploymentError) throw new CommandFailedError(error.message);
      throw error;
    } finally {
      await connected.close();
    }
  },
};
