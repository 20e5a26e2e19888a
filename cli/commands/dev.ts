import { startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { type Command } from '../command';
import { commandConfig } from '../connect';
import { metricsAddress, metricsOptions, parsePort, stringOption } from '../parse-values';
import { commandOnboardingSettings, onboardingOption } from '../onboarding-option';

/** `idv dev`: the embedded development stack, until Ctrl-C. */
export const devCommand: Command = {
  name: 'dev',
  summary:
    'Start the embedded stack (Temporal dev server with web UI, emulator, receiver, worker) and print its addresses',
  stopsGracefully: true,
  usage:
    'dev [--port N] [--ui-port N] [--receiver-port N] [--data-dir DIR] [--onboarding FILE] [--metrics-port N]',
  options: {
    port: { type: 'string', valueName: 'N', description: 'Temporal gRPC port (default 7233)' },
    'ui-port': { type: 'string', valueName: 'N', description: 'Temporal web UI port (default 8233)' },
    'receiver-port': {
      type: 'string',
      valueName: 'N',
      description: 'receiver port: agent deliveries, redirect returns (default: a free port)',
    },
    'data-dir': {
      type: 'string',
      valueName: 'DIR',
      description: 'data directory (default $IDV_DATA_DIR or ./.data)',
    },
    onboarding: onboardingOption,
    ...metricsOptions,
  },
  metrics: ({ values }, env) => metricsAddress(values, env),
  async run({ values }, io) {
    const temporalPort = parsePort(stringOption(values, 'port'), 'port');
    const uiPort = parsePort(stringOption(values, 'ui-port'), 'ui-port');
    const receiverPort = parsePort(stringOption(values, 'receiver-port'), 'receiver-port');
    const dataDir = stringOption(values, 'data-dir') ?? io.env.IDV_DATA_DIR ?? '.data';
    const {
      storeUrl,
      onboardingFile,
      apiCallsPerSecond,
      workflowCacheSize,
      pollPlacement,
      orphanHorizonMs,
      keyRotationMs,
      deployment,
    } = commandConfig(io.env);
    const onboarding = await commandOnboardingSettings(values, onboardingFile);
    const stack = await startEmbeddedStack({
      dataDir,
      temporalPort,
      uiPort,
      apiCallsPerSecond,
      workflowCacheSize,
      pollPlacement,
      orphanHorizonMs,
      keyRotationMs,
      deployment,
      ...(receiverPort !== undefined ? { receiverPort } : {}),
      ...(storeUrl ? { storeUrl } : {}),
      ...(onboarding ? { onboarding } : {}),
    });
    if (values.json === true) {
      // Addresses only: the emulator's keys stay in the owner-only stack.json.
      const { emulator, ...addresses } = stack.info;
      const emulatorAddresses = emulator && {
        baseUrl: emulator.baseUrl,
        agentBaseUrl: emulator.agentBaseUrl,
        controlUrl: emulator.controlUrl,
        verificationProfileId: emulator.verificationProfileId,
      };
      io.stdout.write(
        `${JSON.stringify({ ...addresses, emulator: emulatorAddresses, dataDir: stack.dataDir })}\n`,
      );
    } else {
      io.stdout.write(
        [
          'idv dev is running (Ctrl-C to stop)',
          `  Temporal:     ${stack.info.temporalAddress} (namespace ${stack.info.namespace})`,
          `  Temporal UI:  ${stack.info.temporalUiUrl ?? 'disabled'} (payloads decoded by the codec server)`,
          `  Codec server: ${stack.info.codecEndpoint ?? '-'} (token in ${stack.dataDir}/codec-token)`,
          `  Emulator:     ${stack.info.emulator?.baseUrl ?? '-'} (profile ${stack.info.emulator?.verificationProfileId ?? '-'})`,
          `  Receiver:     ${stack.info.receiverUrl ?? '-'} (agent deliveries; returns at /return/<reference>/<token>: idv verify --return-via-receiver)`,
          `  Worker:       task queue ${stack.info.taskQueue}`,
          `  Data dir:     ${stack.dataDir}`,
          '',
        ].join('\n'),
      );
    }
    const signal = await io.stopRequested;
    io.stderr.write(`idv dev: ${signal} received, stopping\n`);
    await stack.stop();
    io.stderr.write('idv dev: stopped\n');
    return 0;
  },
};
