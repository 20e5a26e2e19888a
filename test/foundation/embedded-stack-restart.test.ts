import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTemporal } from '../../cli/connect';
import { emulatorControl } from '../../emulator/control-client';
import { type EmbeddedStack, startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { harnessEnv, harnessValue } from '../harness/env';
import { testProviderRequest } from '../harness/requests';

describe('idv dev stopped and started again', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-dev-restart-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const start = () =>
    startEmbeddedStack({
      dataDir,
      temporalPort: 0,
      uiPort: 0,
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
    });
  const control = (stack: EmbeddedStack) => emulatorControl(stack.info.emulator?.controlUrl ?? 'missing');

  it('carries a running verification on with its own session, and reuses no session id', async () => {
    const first = await start();
    const profileId = first.info.emulator?.verificationProfileId ?? '';
    const reference = `restart-${process.pid}`;
    let sessionId: string;
    try {
      await control(first)('PUT', '/script', { outcome: 'manual' });
      const connected = await connectTemporal({ IDV_DATA_DIR: dataDir });
      try {
        const { nextStep } = await connected.idv.startVerification(
          testProviderRequest(reference, profileId, { redactAfter: 'never' }),
        );
        sessionId = nextStep.sessionId;
      } finally {
        await connected.close();
      }
    } finally {
      await first.stop();
    }

    const second = await start();
    try {
      // The emulator came back with its keys, its profile and the session, still pending.
      expect(second.info.emulator?.verificationProfileId).toBe(profileId);
      await control(second)('POST', `/sessions/${sessionId}/complete`);
      const connected = await connectTemporal({ IDV_DATA_DIR: dataDir });
      try {
        await expect(connected.idv.getVerification(reference).result()).resolves.toMatchObject({
          status: 'succeeded',
          sessionId,
        });
        const again = await connected.idv.startVerification(
          testProviderRequest(`${reference}-again`, profileId, { redactAfter: 'never' }),
        );
        expect(again.nextStep.sessionId).not.toBe(sessionId);
        await again.handle.cancel('test over');
      } finally {
        await connected.close();
      }
    } finally {
      await second.stop();
    }
  }, 120_000);
});
