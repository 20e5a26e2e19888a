import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { AesGcmPayloadCodec } from '../../codec/aes-gcm-codec';
import { VerificationEndedError } from '../../verification/client/verification-handle';
import { createVerificationWorker } from '../../workers/verification-worker';
import { harnessEncryptionKeys, harnessEnv, harnessValue } from '../harness/env';
import { payloadsIn, sealedInHistory } from '../harness/history-payloads';
import { releaseWorkflowBundle } from '../harness/release-bundle';
import { nativeChallengeRequest } from '../harness/requests';
import { harnessIdvClient, useVerificationStack } from '../harness/verification-stack';
import { uniqueTaskQueue } from '../harness/worker';

// The device's answer to a native challenge (an mDL exchange) may carry the person's credential:
// it reaches history only sealed under the verification's data key, so the redaction leaves it
// readable by no one, not even the holders of the payload keys.
describe('what callers send in history: the native challenge token, the cancel reason', () => {
  const stack = useVerificationStack();
  const nativeChallenge = () => stack().request(nativeChallengeRequest);
  /** Every payload of a workflow's history, decoded with the payload keys, as text. */
  const decodedHistory = async (workflowId: string): Promise<string[]> => {
    const history = await stack().client.workflow.getHandle(workflowId).fetchHistory();
    const decoded = await new AesGcmPayloadCodec(harnessEncryptionKeys()).decode(payloadsIn(history));
    return decoded.map((payload) => Buffer.from(payload.data ?? []).toString('utf8'));
  };

  it('is sealed under the data key, and the service gets it as the device gave it', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(nativeChallenge());
    // The emulator fails a session whose token starts with "invalid": it got the token itself.
    const token = `invalid-device-response-${randomUUID()}`;
    await handle.submitNativeChallenge(token);
    await expect(handle.result()).resolves.toMatchObject({ status: 'failed' });
    const texts = await decodedHistory(handle.workflowId);
    expect(texts.filter((text) => text.includes(token))).toEqual([]);
    const sealed = await sealedInHistory(stack().client, handle.workflowId, harnessEncryptionKeys());
    // The update's argument and the activity's input.
    expect(sealed.filter((value) => value.keyId === nextStep.dataKeyId).length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('is refused, as to any ended verification, once the verification has ended and its key is gone', async () => {
    const { handle } = await stack().idv.startVerification(nativeChallenge());
    await handle.submitNativeChallenge('device-response');
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    await stack().idv.redactVerification(handle.reference);
    // The device's answer sent again (a browser's retry): nothing to seal it under, nothing to do.
    await expect(handle.submitNativeChallenge('device-response')).rejects.toThrow(VerificationEndedError);
  }, 60_000);

  it('is refused sealed under another key, before it reaches history', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(nativeChallenge());
    const other = await stack().prepare(stack().request());
    const misplaced = await stack().dataKeys.seal(other.dataKeyId, 'device-response');
    const refusal: unknown = await handle.workflow
      .executeUpdate('submitNativeChallenge', { args: [misplaced] })
      .catch((error: unknown) => error);
    expect(String((refusal as Error).cause)).toContain("sealed under the verification's data key");
    await handle.submitNativeChallenge('device-response');
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect(nextStep.dataKeyId).not.toBe(other.dataKeyId);
  }, 60_000);

  it("keeps a caller's cancel reason sealed under the data key: the person it may name is readable to no one once redacted", async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 0, polling: { initialMs: 200, maxMs: 500 } }),
    );
    const reason = `Jane Roe ${randomUUID()} asked us to stop`;
    await handle.cancel(reason);
    await expect(handle.result()).resolves.toMatchObject({ status: 'cancelled' });
    const texts = await decodedHistory(handle.workflowId);
    expect(texts.filter((text) => text.includes(reason))).toEqual([]);
    // The redaction destroys the key it is sealed under.
    await stack().client.workflow.getHandle(`idv-redact-${nextStep.sessionId}`).result();
    expect((await stack().store.dataKeys.get(nextStep.dataKeyId ?? ''))?.state).toBe('destroyed');
    // One sealed under another key is refused before it reaches history.
    const { handle: other } = await stack().idv.startVerification(stack().request());
    const foreign = await stack().prepare(stack().request());
    const refusal: unknown = await other.workflow
      .executeUpdate('cancel', { args: [await stack().dataKeys.seal(foreign.dataKeyId, 'a reason')] })
      .catch((error: unknown) => error);
    expect(String((refusal as Error).cause)).toContain("sealed under the verification's data key");
    await other.cancel();
    await stack().idv.discardInput(foreign);
  }, 60_000);

  it('cancels all the same when the reason cannot be sealed (its key gone), leaving the reason out', async () => {
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ redactAfter: 'never', polling: { initialMs: 200, maxMs: 500 } }),
    );
    await stack().dataKeys.destroy(nextStep.dataKeyId ?? '');
    await expect(handle.cancel('Richard Roe asked us to stop')).resolves.toMatchObject({
      status: 'cancelled',
    });
    const texts = await decodedHistory(handle.workflowId);
    expect(texts.filter((text) => text.includes('Richard Roe'))).toEqual([]);
  }, 60_000);

  it('goes as it is to a verification of release 1.0.0, which takes no sealed token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idv-release-1.0.0-'));
    const bundlePath = join(dir, 'workflows.js');
    await writeFile(bundlePath, await releaseWorkflowBundle('1.0.0'));
    const taskQueue = uniqueTaskQueue('release-1-0-0');
    const connection = await NativeConnection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    const worker = await createVerificationWorker({
      connection,
      taskQueue,
      identity: stack().identity,
      store: stack().store,
      encryptionKeys: harnessEncryptionKeys(),
      workflowBundle: { codePath: bundlePath },
    });
    const running = worker.run();
    try {
      const idv = harnessIdvClient(stack().client, stack().store, taskQueue);
      const { handle } = await idv.startVerification(nativeChallenge());
      expect((await handle.progress()).takesSealedTokens).toBeUndefined();
      await handle.submitNativeChallenge(`invalid-device-response-${randomUUID()}`);
      await expect(handle.result()).resolves.toMatchObject({ status: 'failed' });
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
