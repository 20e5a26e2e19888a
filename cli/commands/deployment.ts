import { type Command, CommandFailedError, UsageError } from '../command';
import { commandConfig, connectTemporal } from '../connect';
import { printJson, tableLines } from '../output';
import { type Client } from '@temporalio/client';
import {
  adoptPinnedWork,
  type BuildStatus,
  comesBefore,
  type DeploymentStatus,
  DeploymentError,
  deploymentStatus,
  promoteBuild,
} from '../../workers/deployment';

/** The deployment's current build, if it has one. */
function currentBuild(status: DeploymentStatus): BuildStatus | undefined {
  return status.builds.find((build) => build.buildId === status.currentBuildId);
}

/** What to do about a build whose pinned work has no worker: said after the table. */
function strandedLine(build: BuildStatus, current: BuildStatus | undefined): string {
  const waits = `build ${build.buildId}: ${build.pinnedRunning} pinned workflows wait and none of its workers polls: start its workers again`;
  // Only work of an earlier build moves onto the current one (see adoptStranded).
  return current !== undefined && comesBefore(build, current)
    ? `${waits}, or move that work onto the current build with \`idv deployment adopt ${build.buildId}\``
    : waits;
}

/**
 * Moves the pinned work of `buildId`, an earlier build none of whose workers polls, onto the
 * current build; refuses any other (its work still runs, or the current build may not replay it).
 */
async function adoptStranded(
  client: Client,
  name: string,
  status: DeploymentStatus,
  buildId: string,
): Promise<number> {
  const current = currentBuild(status);
  const from = status.builds.find((build) => build.buildId === buildId);
  if (!current) throw new CommandFailedError(`${name} has no current build to move work onto`);
  // A quote would be dropped from the visibility query, which would then name another build.
  if (!from || /['\\]/.test(buildId)) throw new UsageError(`${name} has no build ${buildId}`);
  if (from === current)
    throw new UsageError(
      `build ${buildId} is the current one: adopt moves another build's pinned work onto it`,
    );
  if (from.workersPolling > 0)
    throw new CommandFailedError(
      `build ${buildId} still has workers polling: its pinned work runs on them (stop them first to move it)`,
    );
  if (!comesBefore(from, current))
    throw new CommandFailedError(
      `build ${buildId} is not known to come before the current build ${current.buildId}, which may not replay its work: start its workers again`,
    );
  return await adoptPinnedWork(client, { name, buildId: current.buildId }, { fromBuildId: buildId });
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
        const moved = await adoptStranded(client, deployment.name, status, buildId as string);
        if (values.json === true)
          printJson(io, { deployment: deployment.name, from: buildId, to: status.currentBuildId, moved });
        else
          io.stdout.write(
            `${deployment.name}: ${moved} pinned workflows of build ${buildId} moved onto ${status.currentBuildId}\n`,
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
            ...stranded.map((build) => strandedLine(build, currentBuild(status))),
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
