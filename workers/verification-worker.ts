import { Context } from '@temporalio/activity';
import {
  type NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkerPlugin,
} from '@temporalio/worker';
import { createActivities } from '../workers/activities';
import { type AgentPlatform } from '../agent-platform/activities/deps';
import { DataKeys } from '../codec/data-keys';
import { type IdvStore } from '../stores/idv-store';
import { type ResultLimits } from '../verification/activities/result-limits';
import { type OrphanSettings } from '../verification/activities/orphan-settings';
import { PollLearning, type PollPlacementMode } from '../verification/activities/poll-learning';
import { attemptServer } from '../verification/activities/attempt-server';
import { HeldPolls } from '../verification/activities/held-polls';
import { type KeyringSettings } from '../keyring/activities';
import { TemporalKeyring } from '../keyring/client';
import { type IdentityClient } from '../api/identity/identity-client';
import { encryptingDataConverter } from '../codec/data-converter';
import { type EncryptionKey } from '../codec/encryption-keys';
import { type TracingOptions, workerTracing } from './telemetry/tracing';
import { adoptPinnedWork, promoteBuild } from './deployment';
import { versionedWorker, type WorkerDeployment, workerDeployment } from './deployment-settings';

/** Options of {@link createVerificationWorker}. */
export interface VerificationWorkerOptions {
  connection: NativeConnection;
  /** @default 'default' */
  namespace?: string;
  /** The worker's identity in history (who ran each task). @default `<pid>@<host>` */
  workerIdentity?: string;
  taskQueue: string;
  identity: IdentityClient;
  /** The vault, data keys and stored attachments, shared by every worker (see `openStore`); the caller closes it. */
  store: IdvStore;
  /** Bounds of results fetching (attachment size and count, identity field size). @default defaultResultLimits */
  resultLimits?: Partial<ResultLimits>;
  /**
   * The orphan sweep: how long after a create attempt that got no answer the service may still
   * carry it out (its session is swept whenever it lands until then). @default 24 hours
   */
  orphans?: Partial<OrphanSettings>;
  /**
   * The keyring (`idv-keyring-<taskQueue>`, run by these workers): how often it rotates its
   * key-encryption key, re-wrapping every live data key; a destroyed one is gone from every copy
   * of the store once the next rotation has run. @default 1 hour
   */
  keyring?: Partial<KeyringSettings>;
  /**
   * How polls are placed: `learned`, by each provider's completion times as the workers saw them
   * (counted in the store, shared by every worker); `rule`, by the fixed rule only.
   * @default 'learned'
   */
  pollPlacement?: PollPlacementMode;
  /** Payload encryption keys, newest first (every payload and failure text is encrypted). */
  encryptionKeys: readonly EncryptionKey[];
  /** The earlier agent platform (tenant keys, receiver URL) for the webhook registries; absent: their calls fail, saying so. */
  agent?: AgentPlatform;
  /**
   * A prebuilt workflow bundle, built with `failureConverterPath` from `codec/data-converter`;
   * the workflows are bundled at start when absent.
   */
  workflowBundle?: { codePath: string };
  /**
   * OpenTelemetry tracing (needs the optional packages `@temporalio/interceptors-opentelemetry`,
   * `@opentelemetry/sdk-trace-base` and `@opentelemetry/resources`). Activities are traced;
   * workflows too when bundled at start (a prebuilt bundle needs `workflowInterceptorModules`
   * with `@temporalio/interceptors-opentelemetry/lib/workflow-interceptors`). @default off
   */
  tracing?: TracingOptions;
  /**
   * Worker Versioning: the deployment and build of this code. Verifications stay on the build
   * that started them; long-lived work moves to the current build. @default the task queue's
   * name, the package's version
   */
  deployment?: Partial<WorkerDeployment>;
  /**
   * When this build becomes the current one: `first-install` only when the deployment has none
   * yet (a later build is made current on purpose, `idv deployment promote`, once its workers
   * run); `on-start` as this worker starts, and the running work pinned to earlier builds moves to
   * it (one process runs the whole deployment, as `idv dev` does: after an upgrade no worker of
   * the old build is left to run its work).
   * @default 'first-install'
   */
  promote?: 'first-install' | 'on-start';
  /**
   * Temporal's worker tuning, passed through: how many workflows stay cached between their tasks
   * (an evicted one replays its short history when it wakes) and how many tasks run at once.
   * @default Temporal's defaults
   */
  tuning?: WorkerTuning;
}

/** The worker options {@link VerificationWorkerOptions.tuning} passes through. */
export type WorkerTuning = Pick<
  WorkerOptions,
  'maxCachedWorkflows' | 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions'
>;

/** A worker for the verification workflows, the webhook registries and connection workflows, and their activities. */
export async function createVerificationWorker(options: VerificationWorkerOptions): Promise<Worker> {
  // The worker's client, once it is built (the keyring's reads from held polls need it).
  const built: { worker?: Worker } = {};
  const heldPolls = new HeldPolls({
    warn: (message) => {
      Runtime.instance().logger.warn(message);
    },
  });
  const activities = createActivities({
    heldPolls,
    identity: options.identity,
    vault: options.store.vault,
    blobs: options.store.blobs,
    records: options.store.records,
    dataKeys: new DataKeys(
      options.store.dataKeys,
      // Read from activities, and from held polls (run outside any activity: see `HeldPolls`),
      // through the worker's own client.
      new TemporalKeyring({
        client: () => built.worker?.client ?? Context.current().client,
        taskQueue: options.taskQueue,
      }),
    ),
    ...(options.pollPlacement !== 'rule'
      ? {
          pollLearning: new PollLearning({
            store: options.store.completionTimes,
            warn: (message) => {
              Runtime.instance().logger.warn(message);
            },
          }),
        }
      : {}),
    ...(options.keyring ? { keyring: options.keyring } : {}),
    ...(options.resultLimits ? { resultLimits: options.resultLimits } : {}),
    ...(options.orphans ? { orphans: options.orphans } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
  });
  const tracing = options.tracing ? workerTracing(options.tracing, !options.workflowBundle) : {};
  const deployment = workerDeployment(options.taskQueue, options.deployment);
  const worker = await Worker.create({
    ...options.tuning,
    ...versionedWorker(deployment),
    ...tracing,
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    ...(options.workerIdentity ? { identity: options.workerIdentity } : {}),
    taskQueue: options.taskQueue,
    activities,
    plugins: [holdingPolls(heldPolls)],
    dataConverter: encryptingDataConverter(options.encryptionKeys),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: require.resolve('../package/workflows') }),
  });
  built.worker = worker;
  if (!worker.client) throw new Error('the worker has no client to read its deployment with');
  const promoted = await promoteBuild(worker.client, deployment, {
    onlyIfNone: options.promote !== 'on-start',
    beforePolling: true,
  });
  if (options.promote === 'on-start') {
    const moved = await adoptPinnedWork(worker.client, deployment);
    if (moved > 0)
      Runtime.instance().logger.info(
        `moved ${moved} running verifications of earlier builds onto build ${deployment.buildId} (no worker of theirs runs)`,
      );
  }
  if (promoted === 'another is current')
    Runtime.instance().logger.warn(
      `build ${deployment.buildId} of deployment ${deployment.name} is not the current build: it takes new work once made current (idv deployment promote ${deployment.buildId})`,
    );
  return worker;
}

/**
 * Holds poll attempts while the worker runs (see `HeldPolls`) and hands every one held back to
 * the server once it has stopped, before its caller closes the connection.
 */
function holdingPolls(held: HeldPolls): WorkerPlugin {
  return {
    name: 'idv-held-polls',
    async runWorker(worker, next) {
      if (!worker.client) throw new Error('the worker has no client to complete held polls with');
      held.open(attemptServer(worker.client));
      try {
        await next(worker);
      } finally {
        await held.release();
      }
    },
  };
}
