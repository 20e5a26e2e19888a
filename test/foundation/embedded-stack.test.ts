import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { readStackInfo } from '../../workers/dev/stack-file';

describe('the embedded stack of idv dev', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-dev-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('persists to SQLite in the data dir, serves the web UI and the emulator, and publishes their addresses', async () => {
    const stack = await startEmbeddedStack({ dataDir, temporalPort: 0, uiPort: 0, worker: false });
    try {
      const published = await readStackInfo(dataDir);
      expect(published).toEqual(stack.info);
      expect(existsSync(join(dataDir, 'temporal.sqlite'))).toBe(true);
      const ui = await fetch(stack.info.temporalUiUrl ?? 'missing');
      await ui.arrayBuffer();
      expect(ui.status).toBe(200);
      const connection = await Connection.connect({ address: stack.info.temporalAddress });
      const health = await connection.healthService.check({});
      await connection.close();
      expect(health.status).toBe(1); // SERVING
      const emulatorHealth = await fetch(`${stack.info.emulator?.controlUrl ?? 'missing'}/health`);
      expect(await emulatorHealth.json()).toEqual({ ok: true });
    } finally {
      await stack.stop();
    }
    expect(await readStackInfo(dataDir)).toBeUndefined();
  });
});
