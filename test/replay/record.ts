// Records the histories of a release, replayed by test/replay/replay.test.ts for ever after:
// `npm run record:histories` writes test/replay/releases/<the package's version>/, once. A
// release's histories are never recorded again: a later release records a folder of its own.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { createIdentityClient } from '../../api/identity/identity-client';
import { IdvClient } from '../../verification/client/idv-client';
import { startEmulator } from '../../emulator/emulator';
import { createVerificationWorker } from '../../workers/verification-worker';
import { startDevServer } from '../../workers/dev/temporal-dev-server';
import { encryptingDataConverter } from '../../codec/data-converter';
import { replayFixtureKeys } from './fixture-keys';
import { scenarios } from './scenarios';
import { agentScenarios } from './agent-scenarios';
import { migrationScenarios } from './migration-scenarios';
import { AgentClients } from '../../api/agent/agent-clients';
import { openLocalStore } from '../../stores/local/local-store';
import { packageVersion } from '../../workers/package-root';
import { releasesDirectory } from './releases';

/** Low enough for the continue-as-new scenario to reach it in seconds; the others stay below. */
const SUGGEST_CONTINUE_AS_NEW_AT = 80;

async function main(): Promise<void> {
  const server = await startDevServer({
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_CONTINUE_AS_NEW_AT },
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'idv-record-'));
  const store = await openLocalStore(dataDir);
  const emulator = await startEmulator({ seed: 3 });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
  const taskQueue = 'record-histories';
  const agentClients = new AgentClients({ keys: emulator.agentKeys, baseUrl: emulator.agentBaseUrl });
  const agent = { baseUrl: emulator.agentBaseUrl, apiKey: emulator.agentKeys['tenant-1'] ?? '' };
  const worker = await createVerificationWorker({
    connection: nativeConnection,
    taskQueue,
    identity,
    store,
    encryptionKeys: replayFixtureKeys,
    // Sweeps end soon after their scenarios.
    orphans: { horizonMs: 5_000 },
    agent: {
      clients: agentClients,
      receiverWebhookUrl: (tenant) => `http://127.0.0.1:9/agent/${tenant}/recorded-token`,
    },
  });
  const dataConverter = encryptingDataConverter(replayFixtureKeys);
  const idv = new IdvClient({
    client: new Client({ connection, dataConverter }),
    store,
    taskQueue,
  });
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${emulator.controlUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  };
  try {
    const directory = join(releasesDirectory, packageVersion());
    if (existsSync(directory))
      throw new Error(`${directory} exists: the histories of a release are recorded once, never again`);
    await mkdir(directory, { recursive: true });
    await worker.runUntil(async () => {
      for (const scenario of [...scenarios, ...agentScenarios, ...migrationScenarios]) {
        const runs = await scenario.run(
          { idv, profileId: emulator.verificationProfiles[0]?.id ?? '', control, agent },
          `replay-${scenario.name}-${Date.now()}`,
        );
        for (const role of scenario.roles) {
          const run = runs[role];
          if (!run) throw new Error(`scenario ${scenario.name} did not report its ${role}`);
          const history = await idv.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
          const file = join(directory, `${scenario.name}.${role}.json`);
          const plain = temporal.api.history.v1.History.toObject(
            temporal.api.history.v1.History.fromObject(history),
            { longs: String, enums: String, bytes: String },
          );
          await writeFile(file, `${JSON.stringify({ workflowId: run.workflowId, history: plain })}\n`);
          process.stdout.write(`recorded ${file}\n`);
        }
      }
    });
  } finally {
    await agentClients.close();
    await identity.close();
    await connection.close();
    await nativeConnection.close();
    await emulator.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `record-histories failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
