import { runEmulatorAction } from './emulator-actions';
import { randomInt } from 'node:crypto';
import { startEmulator, emulatorInfo } from '../../emulator/emulator';
import { type FaultSpec, MAX_FAULT_DELAY_MS } from '../../emulator/http/faults';
import { type Command, UsageError } from '../command';
import { listenOptions, parseNonNegative, parsePort, stringListOption, stringOption } from '../parse-values';

function agentKeys(values: string[]): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const entry of values) {
    const [tenant, key] = entry.split('=', 2);
    if (!tenant || !key) throw new UsageError(`--agent-key takes TENANT=KEY, got '${entry}'`);
    keys[tenant] = key;
  }
  return keys;
}

/** `idv emulator`: the local Identity Verification Service and earlier platform. */
export const emulatorCommand: Command = {
  name: 'emulator',
  summary:
    'Run the local emulator of the identity service and the earlier agent platform; `complete|fail <sessionId>` finish a session of the running stack as its simulated user',
  stopsGracefully: true,
  takesArguments: true,
  usage:
    'emulator [--port N] [--api-key KEY]... [--agent-key TENANT=KEY]... [--seed S] [fault options] | emulator complete|fail <sessionId> [--error-code C]',
  options: {
    ...listenOptions,
    'api-key': {
      type: 'string',
      multiple: true,
      valueName: 'KEY',
      description: 'identity API key, one environment each',
    },
    'agent-key': {
      type: 'string',
      multiple: true,
      valueName: 'TENANT=KEY',
      description: 'earlier-platform key of a tenant',
    },
    seed: {
      type: 'string',
      valueName: 'S',
      description:
        'seed of ids, keys, user latency and faults, for a run to repeat (default: a new one each start)',
    },
    'user-latency-ms': {
      type: 'string',
      valueName: 'MS',
      description: 'how long the simulated user takes (default 2000)',
    },
    'latency-ms': { type: 'string', valueName: 'MS', description: 'fault: delay every answer' },
    'error-rate': {
      type: 'string',
      valueName: 'R',
      description: 'fault: share of requests answered 500 (0..1)',
    },
    'rate-limit-rate': {
      type: 'string',
      valueName: 'R',
      description: 'fault: share of requests answered 429 (0..1)',
    },
    'drop-rate': {
      type: 'string',
      valueName: 'R',
      description: 'fault: share of connections dropped (0..1)',
    },
    'error-code': {
      type: 'string',
      valueName: 'C',
      description: 'with `fail`: the session’s error code (default Other)',
    },
    'slow-body-ms': {
      type: 'string',
      valueName: 'MS',
      description: 'fault: pause in the middle of every body',
    },
  },
  async run(args, io) {
    if (args.positionals.length > 0) return await runEmulatorAction(args, io);
    const { values } = args;
    const seed = parseNonNegative(stringOption(values, 'seed'), 'seed', { integer: true });
    const userLatency = parseNonNegative(stringOption(values, 'user-latency-ms'), 'user-latency-ms');
    const fault: FaultSpec = {};
    const latencyMs = parseNonNegative(stringOption(values, 'latency-ms'), 'latency-ms', {
      max: MAX_FAULT_DELAY_MS,
    });
    const errorRate = parseNonNegative(stringOption(values, 'error-rate'), 'error-rate', { max: 1 });
    const rateLimitRate = parseNonNegative(stringOption(values, 'rate-limit-rate'), 'rate-limit-rate', {
      max: 1,
    });
    const dropRate = parseNonNegative(stringOption(values, 'drop-rate'), 'drop-rate', { max: 1 });
    const slowBodyMs = parseNonNegative(stringOption(values, 'slow-body-ms'), 'slow-body-ms', {
      max: MAX_FAULT_DELAY_MS,
    });
    Object.assign(fault, { latencyMs, errorRate, rateLimitRate, dropRate, slowBodyMs });
    const emulator = await startEmulator({
      port: parsePort(stringOption(values, 'port'), 'port') ?? 0,
      host: stringOption(values, 'host') ?? '127.0.0.1',
      seed: seed ?? randomInt(1, 2 ** 31),
      apiKeys: stringListOption(values, 'api-key'),
      agentKeys: agentKeys(stringListOption(values, 'agent-key')),
    });
    if (userLatency !== undefined)
      emulator.store.script = { ...emulator.store.script, latencyMs: userLatency };
    const activeFault = Object.fromEntries(Object.entries(fault).filter(([, v]) => v !== undefined));
    if (Object.keys(activeFault).length > 0) emulator.http.faults.set('*', activeFault);
    io.stdout.write(`${JSON.stringify(emulatorInfo(emulator))}\n`);
    const signal = await io.stopRequested;
    io.stderr.write(`idv emulator: ${signal} received, stopping\n`);
    await emulator.close();
    return 0;
  },
};
