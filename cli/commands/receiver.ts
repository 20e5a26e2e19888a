import { join } from 'node:path';
import { receiverLog } from '../../workers/log/receiver-log';
import { Client, Connection } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import { encryptingDataConverter } from '../../codec/data-converter';
import { noStackReason, readStackState } from '../../workers/dev/stack-file';
import { devReceiverSecret } from '../../workers/encryption-keys-source';
import { SpoolInUseError } from '../../workers/receiver/delivery-spool';
import { startReceiver } from '../../workers/receiver/receiver-server';
import { ReceiverSecretError, ReceiverTokens } from '../../codec/receiver-tokens';
import { temporalTarget } from '../../workers/temporal-target';
import { retriesWithinDeadline } from '../../workers/grpc-retries';
import { type Command, CommandFailedError } from '../command';
import { commandConfig, commandEncryptionKeys } from '../connect';
import { listenOptions, metricsAddress, metricsOptions, parsePort, stringOption } from '../parse-values';
import { commandOnboardingSettings, onboardingOption } from '../onboarding-option';

/** A fixed default: the webhook URLs registered at the platform name this port. */
const DEFAULT_PORT = 8234;

/** `idv receiver`: agent deliveries into Temporal (spooled while it is away) and redirect returns. */
export const receiverCommand: Command = {
  name: 'receiver',
  summary:
    'Run the receiver: the earlier platform’s webhook deliveries into Temporal (spooled to disk while Temporal is away) and users’ returns from redirect flows',
  stopsGracefully: true,
  usage: 'receiver [--port N] [--host HOST] [--spool-dir DIR] [--onboarding FILE] [--metrics-port N]',
  options: {
    ...listenOptions,
    ...metricsOptions,
    port: {
      type: 'string',
      valueName: 'N',
      description: `port to listen on; keep it stable, the platform posts to it (default ${DEFAULT_PORT})`,
    },
    'spool-dir': {
      type: 'string',
      valueName: 'DIR',
      description:
        'where deliveries wait while Temporal is away, one receiver per directory (default <data dir>/receiver-spool)',
    },
    onboarding: onboardingOption,
  },
  metrics: ({ values }, env) => metricsAddress(values, env),
  async run({ values }, io) {
    const port = parsePort(stringOption(values, 'port'), 'port') ?? DEFAULT_PORT;
    const host = stringOption(values, 'host') ?? '127.0.0.1';
    const config = commandConfig(io.env);
    const onboarding = await commandOnboardingSettings(values, config.onboardingFile);
    const stackState = await readStackState(config.dataDir);
    const stack = stackState.live;
    const target = temporalTarget(config, io.env, stack);
    if (!target)
      throw new CommandFailedError(
        `no Temporal: ${noStackReason(config.dataDir, stackState)}: start \`idv dev\`, or set TEMPORAL_ADDRESS`,
      );
    const encryptionKeys = await commandEncryptionKeys(config, stack);
    let tokens: ReceiverTokens;
    try {
      tokens = new ReceiverTokens(
        config.receiverSecret ?? (stack ? await devReceiverSecret(config.dataDir) : undefined),
      );
    } catch (error) {
      if (error instanceof ReceiverSecretError) throw new CommandFailedError(error.message);
      throw error;
    }
    // Lazy: the receiver starts, and spools, while Temporal is away.
    const connection = Connection.lazy({
      ...target.connectionOptions,
      address: target.connectionOptions.address,
      interceptors: [retriesWithinDeadline()],
    });
    const client = new Client({
      connection,
      dataConverter: encryptingDataConverter(encryptionKeys),
      ...(target.namespace ? { namespace: target.namespace } : {}),
    });
    const taskQueue = io.env.IDV_TASK_QUEUE ? config.taskQueue : (stack?.taskQueue ?? config.taskQueue);
    const spoolDir = stringOption(values, 'spool-dir') ?? join(config.dataDir, 'receiver-spool');
    try {
      const receiver = await startReceiver({
        client,
        taskQueue,
        tokens,
        spoolDir,
        port,
        host,
        ...(onboarding ? { onboarding } : {}),
        log: receiverLog(),
        meter: Runtime.instance().metricMeter,
      }).catch((error: unknown) => {
        if (error instanceof SpoolInUseError) throw new CommandFailedError(error.message);
        throw error;
      });
      io.stderr.write(
        `idv receiver: listening on ${receiver.url}, spool ${spoolDir} (${receiver.spoolDepth()} waiting), task queue ${taskQueue} (Ctrl-C to stop)\n`,
      );
      await io.stopRequested;
      await receiver.close();
      io.stderr.write('idv receiver: stopped\n');
      return 0;
    } finally {
      await connection.close();
    }
  },
};
