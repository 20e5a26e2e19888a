import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { type WorkerDeployment } from './deployment-settings';

const enums = temporal.api.enums.v1;

/** Thrown when the deployment cannot be read or changed (Temporal away, or refusing). */
export class DeploymentError extends Error {
  override readonly name = 'DeploymentError';
}

/** A build of the deployment, as Temporal sees it. */
export interface BuildStatus {
  buildId: string;
  /** `current`, `ramping`, `draining` (pinned work still runs on it), `drained`, `inactive`. */
  status: string;
  /** Pinned workflows still running on it: 0 means its workers may stop. */
  pinnedRunning: number;
}

/** What {@link deploymentStatus} answers. */
export interface DeploymentStatus {
  name: string;
  currentBuildId: string | undefined;
  builds: BuildStatus[];
}

const statusName = (value: number | null | undefined): string =>
  (enums.WorkerDeploymentVersionStatus[value ?? 0] ?? 'UNSPECIFIED')
    .replace('WORKER_DEPLOYMENT_VERSION_STATUS_', '')
    .toLowerCase();

async function describe(client: Client, name: string) {
  try {
    return await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName: name,
    });
  } catch (error) {
    if ((error as { code?: number }).code === 5) return undefined;
    throw new DeploymentError(`cannot read deployment ${name}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The deployment's builds, which one is current, and how much pinned work each still runs. */
export async function deploymentStatus(client: Client, name: string): Promise<DeploymentStatus> {
  const described = await describe(client, name);
  const info = described?.workerDeploymentInfo;
  const builds: BuildStatus[] = [];
  for (const summary of info?.versionSummaries ?? []) {
    const buildId = summary.deploymentVersion?.buildId ?? '';
    const { count } = await client.workflow.count(
      `TemporalWorkerDeploymentVersion = '${name}:${buildId}' AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`,
    );
    builds.push({ buildId, status: statusName(summary.status), pinnedRunning: count });
  }
  return {
    name,
    currentBuildId: info?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined,
    builds,
  };
}

/**
 * Makes `deployment`'s build the current one: new work runs on it, long-lived work moves to it,
 * pinned work stays where it started. `onlyIfNone`: only when the deployment has no current
 * build yet (a first install: nothing runs in a deployment without one). `beforePolling`: the
 * caller runs this build's worker and is about to poll (otherwise Temporal refuses a build whose
 * workers do not poll: a typo). Answers what holds afterwards: of two builds promoted at once,
 * the one overtaken learns that another is current.
 */
export async function promoteBuild(
  client: Client,
  deployment: WorkerDeployment,
  options: { onlyIfNone?: boolean; beforePolling?: boolean } = {},
): Promise<'promoted' | 'already current' | 'another is current'> {
  for (let attempt = 1; ; attempt += 1) {
    const described = await describe(client, deployment.name);
    const current = described?.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId;
    if (current === deployment.buildId) return 'already current';
    if (current && options.onlyIfNone) return 'another is current';
    const makeCurrent = (buildId: string, conflictToken: Uint8Array | undefined | null) =>
      client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: deployment.name,
        buildId,
        ...(conflictToken ? { conflictToken } : {}),
        identity: client.options.identity ?? 'idv-temporal',
        // The caller's worker polls this build's task queues in a moment.
        allowNoPollers: options.beforePolling === true,
        ignoreMissingTaskQueues: options.beforePolling === true,
      });
    try {
      const answer = await makeCurrent(deployment.buildId, described?.conflictToken);
      // A deployment this very call made had no token to hold against another first build
      // promoted at once: the first one stays current.
      const previous = answer.previousDeploymentVersion?.buildId;
      if (options.onlyIfNone && previous && previous !== deployment.buildId) {
        await makeCurrent(previous, answer.conflictToken);
        return 'another is current';
      }
      return 'promoted';
    } catch (error) {
      // Another process changed the routing meanwhile (its token no longer holds): look again.
      const code = (error as { code?: number }).code;
      if ((code === 9 || code === 10) && attempt < 5) continue;
      throw new DeploymentError(
        `cannot make build ${deployment.buildId} of ${deployment.name} current: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}
