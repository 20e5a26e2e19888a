// Records the histories replayed by test/replay/replay.test.ts: `npm run record:histories`.
// Run it when a workflow change is meant to change histories (and bump nothing else).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { createIdentityClient } from '../../api/identity/identity-client';
import { IdvClient } from '../../client/idv-client';
import { startEmulator } from '../../emulator/emulator';
import { createVerificationWorker } from '../../workers/verification-worker';
import { startDevServer } from '../../workers/dev/temporal-dev-server';
import { scenarios } from './scenarios';

async function main(): Promise<void> {
  const server = await startDevServer({});
  const emulator = await startEmulator({ seed: 3 });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
  const taskQueue = 'record-histories';
  const worker = await createVerificationWorker({
    connection: nativeConnection,
    taskQueue,
    identity,
    dataDir: join('.data', 'record-histories'),
  });
  const idv = new IdvClient({ client: new Client({ connection }), taskQueue });
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
    await worker.runUntil(async () => {
      for (const scenario of scenarios) {
        const ids = await scenario.run(
          { idv, profileId: emulator.verificationProfiles[0]?.id ?? '', control },
          `replay-${scenario.name}`,
        );
        for (const [index, workflowId] of ids.entries()) {
          const history = await idv.client.workflow.getHandle(workflowId).fetchHistory();
          const file = join(__dirname, 'histories', `${scenario.name}${index === 0 ? '' : `-${index}`}.json`);
          const plain = temporal.api.history.v1.History.toObject(
            temporal.api.history.v1.History.fromObject(history),
            {
              longs: String,
              enums: String,
              bytes: String,
            },
          );
          await writeFile(file, `${JSON.stringify(plain)}\n`);
          process.stdout.write(`recorded ${file}\n`);
        }
      }
    });
  } finally {
    await identity.close();
    await connection.close();
    await nativeConnection.close();
    await emulator.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `record-histories failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
