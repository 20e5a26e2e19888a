import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLocalStore } from '../../stores/local/local-store';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';
import { uniqueTaskQueue } from '../harness/worker';
import { startIdvProcess, workerProcessEnv } from '../harness/worker-process';

describe('idv worker with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const stack = useVerificationStack();
  let dataDir: string;
  let collector: Server;
  const received: Array<{ path: string; body: string }> = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-otlp-'));
    // A stand-in for an OpenTelemetry collector: records what the exporter posts.
    collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ path: request.url ?? '', body });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => collector.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it("exports the verification's activity spans to the collector by the time the worker stops", async () => {
    const taskQueue = uniqueTaskQueue('otlp');
    const { port } = collector.address() as AddressInfo;
    const worker = await startIdvProcess(
      ['worker'],
      {
        ...workerProcessEnv(stack().emulator, taskQueue, dataDir),
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_SERVICE_NAME: 'idv-worker-under-test',
      },
      'polling task queue',
    );
    const idv = harnessIdvClient(stack().client, await openLocalStore(dataDir), taskQueue);
    const { handle } = await idv.startVerification(stack().request({ redactAfter: 'never' }));
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect(await worker.stop()).toBe(0);
    const traces = received.filter((post) => post.path === '/v1/traces').map((post) => post.body);
    const all = traces.join('\n');
    expect(all).toContain('RunActivity:createSession');
    expect(all).toContain(handle.workflowId);
    expect(all).toContain('idv-worker-under-test');
    expect(all).not.toContain('Lovelace');
    // A worker process of its own, bundling its workflows as it starts: 45 s on a busy CI.
  }, 120_000);
});
