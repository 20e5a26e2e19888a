import { type Command, CommandFailedError, UsageError } from '../command';
import { commandConfig, connectTemporal } from '../connect';
import { printJson, tableLines } from '../output';
import { DeploymentError, deploymentStatus, promoteBuild } from '../../workers/deployment';

/** `idv deployment [promote <build>]`: the deployment's builds, or a build made current. */
export const deploymentCommand: Command = {
  name: 'deployment',
  takesArguments: true,
  summary:
    "Show the deployment's builds (current, draining, drained) and the pinned work each still runs, or make a build current",
  usage: 'deployment [promote <build-id>] [--json]',
  options: {},
  async run({ positionals, values }, io) {
    const [action, buildId, ...extra] = positionals;
    if (extra.length > 0 || (action !== undefined && action !== 'promote'))
      throw new UsageError(
        `unexpected argument '${extra[0] ?? action}': idv deployment shows, idv deployment promote <build-id> promotes`,
      );
    if (action === 'promote' && !buildId) throw new UsageError('idv deployment promote needs a build id');
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
      if (values.json === true) printJson(io, status);
      else if (status.builds.length === 0) io.stdout.write(`${deployment.name}: no build has run yet\n`);
      else
        io.stdout.write(
          `${tableLines(
            ['BUILD', 'STATUS', 'PINNED RUNNING'],
            status.builds.map((build) => [build.buildId, build.status, String(build.pinnedRunning)]),
          ).join('\n')}\n`,
        );
      return 0;
    } catch (error) {
      if (error instanceof DeploymentError) throw new CommandFailedError(error.message);
      throw error;
    } finally {
      await connected.close();
    }
  },
};
