import { type WorkerOptions } from '@temporalio/worker';
import { packageVersion } from './package-root';

/**
 * Where a worker's code belongs in Temporal's Worker Versioning: its deployment and its build.
 * Workflows run on the build their versioning behaviour allows (verifications stay on the build
 * that started them; long-lived work moves to the current one); a new build takes new work once
 * it is made current.
 */
export interface WorkerDeployment {
  /** @default the task queue's name (`IDV_DEPLOYMENT`) */
  name: string;
  /** The code's version: a new build id for every change of workflow code. @default the package's version (`IDV_BUILD_ID`) */
  buildId: string;
}

/**
 * The deployment, its defaults resolved. Its name defaults to the task queue's: Temporal makes a
 * build current only once it polls every task queue of its deployment, so two stacks of one
 * namespace sharing a deployment name could not be upgraded apart.
 */
export function workerDeployment(
  taskQueue: string,
  deployment: Partial<WorkerDeployment> = {},
): WorkerDeployment {
  return {
    name: deployment.name ?? taskQueue.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 100),
    buildId: deployment.buildId ?? packageVersion(),
  };
}

/**
 * The worker's versioning options: versioned, in `deployment`; a workflow type that states no
 * behaviour (a business's own) is pinned to the build that started it.
 */
export function versionedWorker(
  deployment: WorkerDeployment,
): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  return {
    workerDeploymentOptions: {
      useWorkerVersioning: true,
      version: { deploymentName: deployment.name, buildId: deployment.buildId },
      defaultVersioningBehavior: 'PINNED',
    },
  };
}
