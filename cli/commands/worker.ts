import { NativeConnection } from '@temporalio/worker';
import { CallBudget } from '../../api/http/call-budget';
import { createIdentityClient } from '../../api/identity/identity-client';
import { noStackReason, readStackState } from '../../workers/dev/stack-file';
import { temporalTarget } from '../../workers/temporal-target';
import { agentPlatformOf } from '../../workers/agent-platform';
import { createVerificationWorker } from '../../workers/verification-worker';
import { shareCallBudget, uniqueWorkerIdentity } from '../../workers/budget-share';
import { apiCallMetrics } from '../../workers/telemetry/api-metrics';
import { budgetMetrics } from '../../workers/telemetry/budget-metrics';
import { tracingFromEnvironment } from '../../workers/telemetry/otlp-tracing';
import { type TracingOptions } from '../../workers/telemetry/tracing';
import { type Command, CommandFailedError } from '../command';
import { metricsAddress, metricsOptions } from '../parse-values';
import { commandConfig, commandEncryptionKeys, commandStore } from '../connect';

/** `idv worker`: the worker process; stops gracefully on SIGINT/SIGTERM. */
export const workerCommand: Command = {
  name: 'worker',
  summary:
    'Run a worker of the verification workflows (Temporal and service from the environment, or the embedded stack)',
  stopsGracefully: true,
  usage: 'worker [--metrics-port N] [--metrics-host HOST]',
  options: { ...metricsOptions },
  metrics: ({ values }, env) => metricsAddress(values, env),
  async run(_args, io) {
    const config = commandConfig(io.env);
    const tracing = commandTracing(io.env);
    const stackState = await readStackState(config.dataDir);
    const stack = stackState.live;
    const identityOptions =
      config.identity ??
      (stack?.emulator ? { baseUrl: stack.emulator.baseUrl, apiKey: stack.emulator.apiKey } : undefined);
    if (!identityOptions)
      throw new CommandFailedError(
        'no identity service: set IDV_API_KEY (and IDV_API_BASE_URL or IDV_REGION), or start `idv dev`',
      );
    const target = temporalTarget(config, io.env, stack);
    if (!target)
      throw new CommandFailedError(
        `no Temporal: ${noStackReason(config.dataDir, stackState)}: start \`idv dev\`, or set TEMPORAL_ADDRESS`,
      );
    const encryptionKeys = await commandEncryptionKeys(config, stack);
    const store = await commandStore(config);
    const connection = await NativeConnection.connect(target.connectionOptions).catch(
      async (error: unknown) => {
        await store.close();
        throw error;
      },
    );
    const { namespace } = target;
    const budget = new CallBudget({ callsPerSecond: config.apiCallsPerSecond });
    const stopBudgetMetrics = budgetMetrics(budget);
    const identity = createIdentityClient({ ...identityOptions, onCall: apiCallMetrics(), budget });
    const agent = await agentPlatformOf(config, stack);
    try {
      const worker = await createVerificationWorker({
        connection,
        taskQueue: config.taskQueue,
        // The budget's parts are counted by identity: Temporal's default repeats across containers.
        workerIdentity: uniqueWorkerIdentity(),
        identity,
        store,
        encryptionKeys,
        tuning: { maxCachedWorkflows: config.workflowCacheSize },
        pollPlacement: config.pollPlacement,
        orphans: { horizonMs: config.orphanHorizonMs },
        keyring: { rotateEveryMs: config.keyRotationMs },
        deployment: config.deployment,
        ...(agent ? { agent } : {}),
        ...(namespace ? { namespace } : {}),
        ...(tracing ? { tracing } : {}),
      });
      io.stderr.write(
        `idv worker: polling task queue ${config.taskQueue}, deployment ${config.deployment.name} build ${config.deployment.buildId}, store: ${store.description} (Ctrl-C to stop)\n`,
      );
      const running = worker.run();
      // IDV_API_RATE holds for every worker of the task queue together.
      const stopSharing = shareCallBudget({ worker, budget });
      try {
        await Promise.race([running, io.stopRequested]);
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
      } finally {
        stopSharing();
      }
      io.stderr.write('idv worker: stopped\n');
      return 0;
    } finally {
      await tracing?.spanProcessor.shutdown();
      await agent?.clients.close();
      stopBudgetMetrics();
      budget.close();
      await identity.close();
      await connection.close();
      await store.close();
    }
  },
};

/** Tracing from the OpenTelemetry variables; the optional packages missing is one line. */
function commandTracing(env: NodeJS.ProcessEnv): TracingOptions | undefined {
  try {
    return tracingFromEnvironment(env);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'MODULE_NOT_FOUND')
      throw new CommandFailedError(
        'OTEL_EXPORTER_OTLP_ENDPOINT is set but the tracing packages are not installed: npm install ' +
          '@temporalio/interceptors-opentelemetry @opentelemetry/sdk-trace-base @opentelemetry/resources ' +
          '@opentelemetry/exporter-trace-otlp-http',
      );
    throw error;
  }
}
