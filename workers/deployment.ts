import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { type WorkerDeployment } from './deployment-settings';
import { grpcStatus } from '../common/grpc-status';
import { queryValue } from '../common/visibility-query';
import { POLLER_LIVE_MS, taskQueuePollers } from './task-queue-pollers';

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
  /** When Temporal first saw it (ms since the epoch; 0 when not said). */
  createdAtMs: number;
  /** Its workers polling its workflow task queues, seen within `POLLER_LIVE_MS`. */
  workersPolling: number;
  /**
   * Pinned work runs on it and none of its workers polls: that work waits for ever (its
   * sessions stay live at the service) until its workers start again or it is adopted
   * ({@link adoptPinnedWork}).
   */
  stranded: boolean;
}

/**
 * `build` is known, by Temporal's creation times, to come before `current`: the current build
 * replays its histories (CI replays each release's), so its pinned work may move there.
 */
export function comesBefore(build: BuildStatus, current: BuildStatus): boolean {
  return build.createdAtMs > 0 && current.createdAtMs > 0 && build.createdAtMs < current.createdAtMs;
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
    if ((error as { code?: number }).code === grpcStatus.NOT_FOUND) return undefined;
    throw new DeploymentError(`cannot read deployment ${name}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The deployment's builds, which one is current, how much pinned work each still runs, and
 * whether its workers poll. `nowMs` is when pollers' last access is judged from.
 */
export async function deploymentStatus(
  client: Client,
  name: string,
  options: { nowMs?: number } = {},
): Promise<DeploymentStatus> {
  const described = await describe(client, name);
  const info = described?.workerDeploymentInfo;
  const builds: BuildStatus[] = [];
  for (const summary of info?.versionSummaries ?? []) {
    const buildId = summary.deploymentVersion?.buildId ?? '';
    const { count } = await client.workflow.count(
      `TemporalWorkerDeploymentVersion = ${queryValue(`${name}:${buildId}`)} AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`,
    );
    const workersPolling = await buildWorkers(client, { name, buildId }, options.nowMs ?? Date.now());
    builds.push({
      buildId,
      status: statusName(summary.status),
      pinnedRunning: count,
      createdAtMs:
        Number(summary.createTime?.seconds ?? 0) * 1_000 + Math.floor((summary.createTime?.nanos ?? 0) / 1e6),
      workersPolling,
      stranded: count > 0 && workersPolling === 0,
    });
  }
  return {
    name,
    currentBuildId: info?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined,
    builds,
  };
}

/**
 * The workers of a build polling its workflow task queues (by identity, its first partitions), seen
 * within `POLLER_LIVE_MS` of `nowMs` (Temporal keeps a poller's last access for minutes after it
 * stopped; a live worker is seen again within a minute).
 */
async function buildWorkers(client: Client, version: WorkerDeployment, nowMs: number): Promise<number> {
  const { namespace } = client.options;
  try {
    const described = await client.workflowService.describeWorkerDeploymentVersion({
      namespace,
      deploymentVersion: { deploymentName: version.name, buildId: version.buildId },
    });
    const queues = (described.workerDeploymentVersionInfo?.taskQueueInfos ?? []).filter(
      (queue) => queue.type === enums.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW && queue.name,
    );
    const workers = new Set<string>();
    for (const queue of queues)
      for (const poller of await taskQueuePollers(client, {
        namespace,
        taskQueue: queue.name as string,
        type: 'workflow',
      }))
        if (
          poller.deployment?.name === version.name &&
          poller.deployment.buildId === version.buildId &&
          poller.lastAccessMs >= nowMs - POLLER_LIVE_MS
        )
          workers.add(poller.identity);
    return workers.size;
  } catch (error) {
    throw new DeploymentError(
      `cannot read the workers of build ${version.buildId} of ${version.name}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Makes `deployment`'s build the current one: new work runs on it, long-lived work moves to it,
 * pinned work stays where it started. `onlyIfNone`: only when the deployment has no current
 * build yet (a first install: nothing runs in a deployment without one). `beforePolling`: the
 * caller runs this build's worker and is about to poll (otherwise Temporal refuses a build whose
 * workers do not poll: a typo). Answers what holds afterwards: the build current in the end was
 * told `promoted`.
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
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: deployment.name,
        buildId: deployment.buildId,
        ...(described ? { conflictToken: described.conflictToken } : {}),
        identity: client.options.identity ?? 'idv-temporal',
        // The caller's worker polls this build's task queues in a moment.
        allowNoPollers: options.beforePolling === true,
        ignoreMissingTaskQueues: options.beforePolling === true,
      });
      // A deployment this very call made had no token to hold against another first build set at
      // once: the last one set stays, and tells so; one set earlier learns it here (or, set in
      // the same instant, may not: each is a build whose workers poll, so work runs either way).
      const after = await describe(client, deployment.name);
      const now = after?.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId;
      return now === deployment.buildId ? 'promoted' : 'another is current';
    } catch (error) {
      // Another process changed the routing meanwhile (its token no longer holds): look again.
      const code = (error as { code?: number }).code;
      if ((code === grpcStatus.FAILED_PRECONDITION || code === grpcStatus.ABORTED) && attempt < 5) continue;
      throw new DeploymentError(
        `cannot make build ${deployment.buildId} of ${deployment.name} current: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}

/**
 * Moves the running workflows pinned to the deployment's other builds (or to `fromBuildId` only)
 * onto the current build (`deployment`'s, promoted first): for a process that runs the whole
 * deployment alone (`idv dev`), after an upgrade no worker of the old build is left; for an
 * operator (`idv deployment adopt`), a build whose workers are gone strands its pinned work,
 * which would never run again. Meant for an earlier build's work: a later build replays the
 * released histories (CI replays each release's). Resolves to how many moved.
 */
export async function adoptPinnedWork(
  client: Client,
  deployment: WorkerDeployment,
  options: { fromBuildId?: string } = {},
): Promise<number> {
  const query = [
    `TemporalWorkerDeployment = ${queryValue(deployment.name)}`,
    `TemporalWorkflowVersioningBehavior = 'Pinned'`,
    `ExecutionStatus = 'Running'`,
    options.fromBuildId === undefined
      ? `TemporalWorkerDeploymentVersion != ${queryValue(`${deployment.name}:${deployment.buildId}`)}`
      : `TemporalWorkerDeploymentVersion = ${queryValue(`${deployment.name}:${options.fromBuildId}`)}`,
  ].join(' AND ');
  let moved = 0;
  for await (const execution of client.workflow.list({ query })) {
    try {
      await client.workflowService.updateWorkflowExecutionOptions({
        namespace: client.options.namespace,
        workflowExecution: { workflowId: execution.workflowId, runId: execution.runId },
        workflowExecutionOptions: {
          // Onto the current build (this one), which may not have polled yet: a pinned override
          // would need its version seen on the task queue first.
          versioningOverride: { autoUpgrade: true },
        },
        updateMask: { paths: ['versioning_override'] },
      });
      moved += 1;
    } catch (error) {
      // It ended meanwhile: nothing to move.
      if ((error as { code?: number }).code !== grpcStatus.NOT_FOUND)
        throw new DeploymentError(
          `cannot move ${execution.workflowId} to build ${deployment.buildId}: ${(error as Error).message}`,
          { cause: error },
        );
    }
  }
  return moved;
}
