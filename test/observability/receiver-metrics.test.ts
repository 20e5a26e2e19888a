import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../workers/dev/free-port';
import { ReceiverTokens } from '../../codec/receiver-tokens';
import { harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { startIdvProcess } from '../harness/worker-process';
import { uniqueTaskQueue } from '../harness/worker';

const SECRET = 'receiver-metrics-secret-0123456789abcdef';

describe('the receiver metrics endpoint', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-receiver-metrics-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('counts deliveries by result and shows the spool depth', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const receiver = await startIdvProcess(
      ['receiver', '--port', String(port), '--metrics-port', String(metricsPort)],
      {
        TEMPORAL_ADDRESS: harnessValue(harnessEnv.temporalAddress),
        IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
        IDV_RECEIVER_SECRET: SECRET,
        IDV_TASK_QUEUE: uniqueTaskQueue('receiver-metrics'),
        IDV_DATA_DIR: dataDir,
      },
      'listening on',
    );
    const post = (token: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}/agent/tenant-m/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const metrics = async () => await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    try {
      const token = new ReceiverTokens(SECRET).tenantToken('tenant-m');
      expect((await post('wrong-token', {})).status).toBe(401);
      expect((await post(token, { nothing: true })).status).toBe(400);
      const event = {
        message_type: 'new_connection',
        object_id: 'obj-1',
        data: { connection_id: `conn-${process.pid}` },
      };
      expect((await post(token, event)).status).toBe(200);
      const text = await eventually(async () => {
        const scraped = await metrics();
        return /idv_receiver_deliveries\{[^}]*result="delivered"[^}]*\} 1\b/.test(scraped)
          ? scraped
          : undefined;
      }, 'the delivered delivery to be counted');
      expect(text).toMatch(/idv_receiver_deliveries\{[^}]*result="unauthorized"[^}]*\} 1\b/);
      expect(text).toMatch(/idv_receiver_deliveries\{[^}]*result="invalid"[^}]*\} 1\b/);
      expect(text).toMatch(/idv_receiver_spool_depth(\{[^}]*\})? 0\b/);
      expect(text).toMatch(/idv_receiver_longest_wait_seconds(\{[^}]*\})? 0\b/);
      expect(text).not.toContain(token);
      expect(text).not.toContain('tenant-m');
    } finally {
      expect(await receiver.stop()).toBe(0);
    }
  }, 60_000);
});
