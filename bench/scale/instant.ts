// `npm run bench:instant`: what the orchestration costs per verification whose user finishes at
// once, against a bare one-activity workflow on the same server. Both run in this process (worker
// and client), on a stack of their own, warmed up first, in alternating rounds: the process state
// (heap, JIT, the server's tables) is the same for both. Rewrites its section of
// docs/benchmarks.md.
import { cpus, totalmem } from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { CallBudget } from '../../api/http/call-budget';
import { createIdentityClient } from '../../api/identity/identity-client';
import { createActivities } from '../../workers/activities';
import { IdvClient } from '../../verification/client/idv-client';
import { DataKeys } from '../../codec/data-keys';
import { TemporalKeyring } from '../../keyring/client';
import { encryptingDataConverter, failureConverterPath } from '../../codec/data-converter';
import { parseEncryptionKeys } from '../../codec/encryption-keys';
import { runtimeLogger, runtimeOptions } from '../../workers/logging';
import { testProviderRequest } from '../../test/harness/requests';
import { inLanes } from '../receiver/deliveries';
import { recordSection } from '../support/record';
import { runBench } from '../support/run-bench';
import { cell, round } from '../support/stats';
import { type BenchEmulator, processUsage, type ScaleStack, startScaleStack } from './stack';
import { promoteBuild } from '../../workers/deployment';
import { versionedWorker, workerDeployment } from '../../workers/deployment-settings';

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** Measured verifications (and bare workflows), over the rounds. */
const COUNT = numberFrom('BENCH_INSTANT', 300);
const ROUNDS = numberFrom('BENCH_INSTANT_ROUNDS', 3);
/** Run before measuring, of each: the JIT and the caches warm up on both. */
const WARM_UP = numberFrom('BENCH_INSTANT_WARM_UP', 50);
const IN_FLIGHT = 50;

export interface InstantVariant {
  name: string;
  count: number;
  /** Wall seconds of its rounds, together. */
  wallSeconds: number;
  perSecond: number;
  /** CPU of this process (worker and client) per verification, ms. */
  workerCpuMs: number;
  /** CPU of the Temporal dev server per verification, ms. */
  serverCpuMs: number;
}

export async function runInstant(options: {
  stack: ScaleStack;
  emulator: BenchEmulator;
  /** Measured of each variant, over the rounds. */
  count: number;
  rounds: number;
  warmUp: number;
  inFlight: number;
  apiRate: number;
}): Promise<InstantVariant[]> {
  const { stack, emulator } = options;
  await emulator.control('PUT', '/script', { outcome: 'by-input', latencyMs: 0 });
  const encryptionKeys = parseEncryptionKeys(stack.encryptionKeysEntry);
  const taskQueue = 'bench-scale-instant';
  const nativeConnection = await NativeConnection.connect({ address: stack.server.address });
  const connection = await Connection.connect({ address: stack.server.address });
  const client = new Client({ connection, dataConverter: encryptingDataConverter(encryptionKeys) });
  const budget = new CallBudget({ callsPerSecond: options.apiRate });
  const identity = createIdentityClient({
    baseUrl: emulator.info.baseUrl,
    apiKey: emulator.info.apiKeys[0] ?? '',
    budget,
  });
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../sessions/workflows'),
    failureConverterPath,
    logger: runtimeLogger('ERROR'),
  });
  const worker = await Worker.create({
    ...versionedWorker(workerDeployment(taskQueue)),
    connection: nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: encryptingDataConverter(encryptionKeys),
    activities: {
      ...createActivities({
        identity,
        vault: stack.store.vault,
        blobs: stack.store.blobs,
        records: stack.store.records,
        dataKeys: new DataKeys(stack.store.dataKeys, new TemporalKeyring({ client, taskQueue })),
      }),
      noop: () => Promise.resolve(),
    },
  });
  const idv = new IdvClient({ client, store: stack.store, taskQueue });
  const serverPid = stack.server.pid as number;
  const totals = new Map<string, { count: number; wallMs: number; cpuMs: number; serverMs: number }>();
  const stamp = Date.now();
  let started = 0;
  const variants: Array<{ name: string; one: () => Promise<void> }> = [
    {
      name: 'verification (instant user)',
      one: async () => {
        const { handle } = await idv.startVerification(
          testProviderRequest(
            `bench-instant-${stamp}-${started++}`,
            emulator.info.verificationProfiles[0]?.id ?? '',
            {
              redactAfter: 'never',
            },
          ),
        );
        const outcome = await handle.result();
        if (outcome.status !== 'succeeded') throw new Error(`instant verification ended ${outcome.status}`);
      },
    },
    {
      name: 'bare one-activity workflow',
      one: async () => {
        await client.workflow.execute('bareWorkflow', {
          taskQueue,
          workflowId: `bench-bare-${stamp}-${started++}`,
        });
      },
    },
  ];
  const run = async (variant: (typeof variants)[number], count: number, measured: boolean) => {
    const cpu0 = process.cpuUsage();
    const server0 = processUsage(serverPid).cpuSeconds;
    const t0 = Date.now();
    await inLanes(count, options.inFlight, () => variant.one());
    if (!measured) return;
    const cpu = process.cpuUsage(cpu0);
    const total = totals.get(variant.name) ?? { count: 0, wallMs: 0, cpuMs: 0, serverMs: 0 };
    total.count += count;
    total.wallMs += Date.now() - t0;
    total.cpuMs += (cpu.user + cpu.system) / 1000;
    total.serverMs += (processUsage(serverPid).cpuSeconds - server0) * 1000;
    totals.set(variant.name, total);
  };
  await promoteBuild(client, workerDeployment(taskQueue), { onlyIfNone: true, beforePolling: true });
  await worker.runUntil(async () => {
    for (const variant of variants) await run(variant, options.warmUp, false);
    const perRound = Math.max(1, Math.round(options.count / options.rounds));
    // Alternating, the second variant first every other round: neither always follows the other.
    for (let round = 0; round < options.rounds; round += 1) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) await run(variant, perRound, true);
    }
  });
  budget.close();
  await identity.close();
  await connection.close();
  await nativeConnection.close();
  return variants.map(({ name }) => {
    const total = totals.get(name) ?? { count: 0, wallMs: 0, cpuMs: 0, serverMs: 0 };
    return {
      name,
      count: total.count,
      wallSeconds: total.wallMs / 1000,
      perSecond: total.count / (total.wallMs / 1000),
      workerCpuMs: total.cpuMs / total.count,
      serverCpuMs: total.serverMs / total.count,
    };
  });
}

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('ERROR'));
  const stack = await startScaleStack();
  try {
    const emulator = await stack.emulator(7);
    const [ours, bare] = (await runInstant({
      stack,
      emulator,
      count: COUNT,
      rounds: ROUNDS,
      warmUp: WARM_UP,
      inFlight: IN_FLIGHT,
      apiRate: 1_000,
    })) as [InstantVariant, InstantVariant];
    const markdown = [
      '## npm run bench:instant: orchestration cost of a user who finishes at once',
      '',
      `Run: \`npm run bench:instant\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30, 0)} GiB. One dev server (SQLite in memory), the emulator in its own process (users finish at once), and in this process the client and one worker (payloads encrypted, local store, budget 1000/s so the budget is not the bound) running our verification workflow (input check, create, polls at the default interval, the results fetched with the poll that finds the success, creation closed; \`redactAfter: 'never'\`) and a bare workflow of one no-op activity, ${IN_FLIGHT} at a time. After ${WARM_UP} of each unmeasured, ${ROUNDS} alternating rounds of ${Math.round(COUNT / ROUNDS)} each; CPU of this process (worker and client) and of the dev server over the rounds, per verification.`,
      '',
      '| workflow | measured | wall s | per second | worker + client CPU ms/verification | Temporal server CPU ms/verification |',
      '|---|---|---|---|---|---|',
      ...[ours, bare].map(
        (v) =>
          `| ${v.name} | ${v.count} | ${cell(v.wallSeconds)} | ${cell(v.perSecond)} | ${cell(v.workerCpuMs)} | ${cell(v.serverCpuMs)} |`,
      ),
      '',
      `Orchestration cost, ours / bare: **${cell(ours.workerCpuMs / bare.workerCpuMs)}x** worker CPU, **${cell(ours.serverCpuMs / bare.serverCpuMs)}x** server CPU per verification; throughput ${cell(ours.perSecond / bare.perSecond)}x (ours waits the first 1 s poll interval).`,
    ].join('\n');
    recordSection('instant', markdown);
    process.stdout.write(`${markdown}\n`);
  } finally {
    await stack.stop();
  }
}

if (require.main === module) runBench('bench/instant', main);
