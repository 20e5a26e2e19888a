import {
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DataKeyDestroyedError } from '../../codec/data-keys';
import {
  InvalidVerificationRequestError,
  parseVerificationRequest,
} from '../../verification/client/parse-request';
import { nextStepUpdate } from '../../verification/shared/messages';
import { verificationSession } from '../../verification/workflows/verification-session';
import { useVerificationStack } from '../harness/verification-stack';
import { createActivities } from '../../workers/activities';
import { type VerificationInput } from '../../verification/domain/verification';
import { withWorker } from '../harness/worker';
import { randomUUID } from 'node:crypto';
import { endingListener } from '../fixtures/parent-workflows';

// Durations are bounded where they enter, and the workflow refuses out-of-bounds input that
// bypassed the client instead of failing its task forever.
describe('verification input bounds', () => {
  const stack = useVerificationStack();

  it.each([
    ['timeout', 1e16],
    ['timeout', '99999999d'],
    ['timeout', '0s'],
    ['redactAfter', '99999999d'],
  ])('refuses %s %p naming the field and its bounds', (field, value) => {
    const error: unknown = (() => {
      try {
        return parseVerificationRequest({ ...stack().request(), [field]: value });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidVerificationRequestError);
    expect(Object.keys((error as InvalidVerificationRequestError).errors)).toEqual([field]);
    expect((error as Error).message).toMatch(/at (least|most)/);
  });

  it.each([
    [
      'providerInput',
      { 'kenya-nid-match-biometric-2': { livenessImages: ['x'.repeat(1_100_000)] } },
      /at most 1 MiB/,
    ],
    ['browserLanguages', Array.from({ length: 33 }, () => 'en'), /at most 32/],
    ['browserLanguages', ['en-GB', `en-${'x'.repeat(33)}`], /at most 35 characters/],
  ])('refuses %s beyond its bounds before anything is created', async (field, value, message) => {
    const refused = await stack()
      .idv.startVerification({ ...stack().request(), [field]: value })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidVerificationRequestError);
    for (const named of Object.keys((refused as InvalidVerificationRequestError).errors))
      expect(named.split('.')[0]).toBe(field);
    expect((refused as Error).message).toMatch(message);
  });

  /** Runs a verification workflow with `input` straight through Temporal; what it failed with. */
  const executeRefused = (input: VerificationInput): Promise<unknown> =>
    stack()
      .client.workflow.execute(verificationSession, {
        taskQueue: stack().taskQueue,
        workflowId: `idv-${input.reference}`,
        args: [input],
      })
      .catch((e: unknown) => e);

  it('fails a workflow started with out-of-bounds input at once (never a stuck task)', async () => {
    // Prepared as a business workflow does (its record names its key), then broken.
    const input = { ...(await stack().idv.prepareInput(stack().request())), timeout: 1e16 };
    const error = await executeRefused(input);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('InvalidVerificationInput');
    expect((cause as ApplicationFailure).message).toMatch(/timeout/);
    // The operator reads why it ended, and that nothing is left to end or redact.
    const { currentDetails } = await stack()
      .client.workflow.getHandle(`idv-${input.reference}`)
      .query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toMatch(
      /^\*\*starting\*\*: refused: the input breaks its bounds; nothing was created/,
    );
    // The key sealed the input's providerInput, kept in this history: nothing will use it now.
    await expect(stack().dataKeys.seal(input.dataKeyId, 'x')).rejects.toBeInstanceOf(DataKeyDestroyedError);
  }, 30_000);

  it('tells the workflow it reports to that it ended when it refuses its input (an onboarding would wait hours)', async () => {
    const listener = await stack().client.workflow.start(endingListener, {
      taskQueue: stack().taskQueue,
      workflowId: `listener-${randomUUID()}`,
      args: [60_000],
    });
    const input = {
      ...(await stack().idv.prepareInput(stack().request())),
      timeout: 1e16,
      reportTo: listener.workflowId,
    };
    expect(await executeRefused(input)).toBeInstanceOf(WorkflowFailedError);
    expect(await listener.result()).toEqual({
      reference: input.reference,
      status: 'failed',
      errorCode: 'InvalidVerificationInput',
    });
  }, 90_000);

  it('fails at once when the workflow it reports to cannot be named (the refusal is not signalled there)', async () => {
    const input = { ...(await stack().idv.prepareInput(stack().request())), reportTo: '' };
    const error = await executeRefused(input);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('InvalidVerificationInput');
    expect(cause.message).toMatch(/reportTo/);
  }, 60_000);

  it('says the input could not be checked when the check cannot run, not that it breaks its bounds', async () => {
    const input = await stack().idv.prepareInput(stack().request());
    // A worker whose check fails every attempt (a fault, not a rule the input breaks).
    const real = createActivities({
      identity: stack().identity,
      vault: stack().store.vault,
      blobs: stack().store.blobs,
      records: stack().store.records,
      dataKeys: stack().dataKeys,
    });
    const activities = {
      checkVerificationInput: () => Promise.reject(new Error('the check itself failed')),
      destroyRefusedStartKey: (args: Parameters<typeof real.destroyRefusedStartKey>[0]) =>
        real.destroyRefusedStartKey(args),
    };
    await withWorker({ activities }, async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(verificationSession, {
        taskQueue,
        workflowId: `idv-${input.reference}`,
        args: [input],
      });
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      const { currentDetails } = await handle.query<{ currentDetails: string }>(
        '__temporal_workflow_metadata',
      );
      expect(currentDetails).toMatch(
        /^\*\*starting\*\*: refused: the input could not be checked \([\w ]+\); nothing was created/,
      );
      await expect(stack().dataKeys.seal(input.dataKeyId, 'x')).rejects.toBeInstanceOf(DataKeyDestroyedError);
    });
  }, 30_000);

  it("leaves a key its reference's record does not name (an input copied to another reference)", async () => {
    const original = await stack().idv.prepareInput(stack().request());
    const copied = { ...original, reference: `${original.reference}-copy`, timeout: 1e16 };
    const error = await executeRefused(copied);
    expect(((error as WorkflowFailedError).cause as ApplicationFailure).type).toBe(
      'InvalidVerificationInput',
    );
    // The original's key still seals: it may be another verification's.
    await expect(stack().dataKeys.seal(original.dataKeyId, 'x')).resolves.toBeDefined();
    await stack().idv.discardInput(original);
  }, 30_000);

  it("refuses a providerInput sealed under another verification's key: its redaction would leave it readable", async () => {
    const own = await stack().idv.prepareInput(stack().request());
    const other = await stack().idv.prepareInput(stack().request());
    expect(own.providerInput).toBeDefined();
    const error = await executeRefused({ ...own, providerInput: other.providerInput });
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('InvalidVerificationInput');
    expect(cause.message).toMatch(/providerInput must be sealed under the verification's data key/);
    await stack().idv.discardInput(other);
  }, 30_000);

  // The input is checked by an activity after the handlers are registered: the start's update
  // (how IdvClient starts) is answered with the refusal, not left without a handler.
  it('answers the start’s update with the refusal of out-of-bounds input', async () => {
    const input = { ...(await stack().prepare(stack().request())), timeout: 1e16 };
    const startWorkflowOperation = new WithStartWorkflowOperation(verificationSession, {
      taskQueue: stack().taskQueue,
      workflowId: `idv-${input.reference}`,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    const error: unknown = await stack()
      .client.workflow.executeUpdateWithStart(nextStepUpdate, { startWorkflowOperation })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (error as WorkflowUpdateFailedError).cause;
    expect((cause as ApplicationFailure).type).toBe('InvalidVerificationInput');
    expect((cause as ApplicationFailure).message).toMatch(/timeout/);
    const ended: unknown = await (
      await startWorkflowOperation.workflowHandle()
    )
      .result()
      .catch((e: unknown) => e);
    expect(((ended as WorkflowFailedError).cause as ApplicationFailure).type).toBe(
      'InvalidVerificationInput',
    );
  }, 30_000);

  it('fails a workflow started without arguments (by hand) at once', async () => {
    const error: unknown = await stack()
      .client.workflow.execute('verificationSession', {
        taskQueue: stack().taskQueue,
        workflowId: `idv-no-arguments-${Date.now()}`,
        args: [],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(((error as WorkflowFailedError).cause as ApplicationFailure).type).toBe(
      'InvalidVerificationInput',
    );
  }, 30_000);
});
