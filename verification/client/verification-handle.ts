import {
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { DataKeyDestroyedError, type DataKeys } from '../../codec/data-keys';
import { type Sealed } from '../../codec/sealed';
import {
  type NextStep,
  type SealedVerificationOutcome,
  type VerificationOutcome,
  type VerificationInput,
  type VerificationProgress,
} from '../domain/verification';
import { type VerificationRecord, type VerificationRecords } from '../../stores/verification-records';
import { verificationFailureTypes } from '../shared/failure-types';
import {
  cancelUpdate,
  type NextStepAnswer,
  nextStepUpdate,
  progressQuery,
  redirectCapturedSignal,
  resultsDeliveredSignal,
  refreshStepUpdate,
  submitNativeChallengeUpdate,
} from '../shared/messages';
import { IdvSessionId } from '../../common/search-attributes';
import { refusedAs, sentAcrossRuns } from '../../common/resend-across-runs';
import { creationCloseWorkflowId, orphanSweepWorkflowId, redactionWorkflowId } from '../shared/ids';
import { type VerificationSessionWorkflow } from '../shared/workflows';

/** Thrown when a message is sent to a verification that has already ended. */
export class VerificationEndedError extends Error {
  override readonly name = 'VerificationEndedError';
}

/** A running or finished verification, addressed by its business reference. */
export class VerificationHandle {
  constructor(
    readonly reference: string,
    readonly workflow: WorkflowHandle<VerificationSessionWorkflow>,
    private readonly dataKeys: DataKeys,
    private readonly records: VerificationRecords,
  ) {}

  /** The verification's record (kept past Temporal's retention); undefined when it has none. */
  async record(): Promise<VerificationRecord | undefined> {
    return await this.records.get(this.reference);
  }

  /** The workflow ID (`idv-<reference>`). */
  get workflowId(): string {
    return this.workflow.workflowId;
  }

  /** The step to hand to the user; waits until the session exists. */
  async nextStep(): Promise<NextStepAnswer> {
    return await this.#whileRunning(() => this.workflow.executeUpdate(nextStepUpdate));
  }

  /**
   * Live progress (status, step, timestamps, API call counts) while it runs. Once it has ended:
   * what its record tells, or, while the record has no ending (or the store is away), what its
   * history tells; never a query, which a closed pinned workflow answers only on the build it ran
   * on, whose workers may have stopped. Once Temporal no longer keeps it: its record.
   */
  async progress(): Promise<VerificationProgress> {
    return await this.#progress(true);
  }

  async #progress(retryEnded: boolean): Promise<VerificationProgress> {
    const description = await this.workflow.describe().catch((error: unknown) => {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      return undefined;
    });
    if (description === undefined) {
      const record = await this.records.get(this.reference);
      if (!record)
        throw new WorkflowNotFoundError('no workflow and no record', this.workflow.workflowId, undefined);
      return progressOfRecord(record);
    }
    if (description.status.name === 'RUNNING') {
      try {
        return await this.workflow.query(progressQuery);
      } catch (error) {
        // It ended meanwhile (or was never more than a start Temporal has since forgotten).
        if (!(error instanceof WorkflowNotFoundError) || !retryEnded) throw error;
        return await this.#progress(false);
      }
    }
    const record = await this.records.get(this.reference).catch(() => undefined);
    if (record && record.status !== 'started') return progressOfRecord(record);
    return await this.#progressOfHistory(description);
  }

  /** An ended verification's progress from its history: its start input and its outcome. */
  async #progressOfHistory(description: WorkflowExecutionDescription): Promise<VerificationProgress> {
    const history = await this.workflow.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    const { payloadCodecs, payloadConverter } = this.workflow.client.options.loadedDataConverter;
    let payloads = started;
    for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
    const input = payloads[0]
      ? payloadConverter.fromPayload<Partial<VerificationInput>>(payloads[0])
      : undefined;
    // It asked its profile's orphan sweep: started it, or signalled it running.
    const sweep = orphanSweepWorkflowId(input?.verificationProfileId ?? '');
    const orphanSweep = (history.events ?? []).some(
      (event) =>
        event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId === sweep ||
        event.externalWorkflowExecutionSignaledEventAttributes?.workflowExecution?.workflowId === sweep,
    );
    // It handed the close of its creation to a workflow of its own (the store was away).
    const closer = creationCloseWorkflowId(this.workflowId);
    const creationClose = (history.events ?? []).some(
      (event) => event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId === closer,
    );
    // A workflow failed for good (its input refused) or terminated has no outcome: it ended
    // failed. A terminated one still names its session, set once it was created.
    const outcome = await this.workflow.result().catch(() => undefined);
    const sessionId = outcome?.sessionId ?? description.typedSearchAttributes.get(IdvSessionId);
    const endedAt = (description.closeTime ?? new Date()).toISOString();
    return {
      reference: this.reference,
      dataKeyId: input?.dataKeyId ?? '',
      status: outcome?.status ?? 'failed',
      ...(sessionId ? { sessionId } : {}),
      ...(outcome?.errorCode ? { errorCode: outcome.errorCode } : {}),
      startedAt: description.startTime.toISOString(),
      updatedAt: endedAt,
      deadline: endedAt,
      apiCalls: {},
      orphanSweep,
      ...(creationClose ? { creationClose: closer } : {}),
    };
  }

  /** Refreshes the step's content now and answers the new step. */
  async refreshStep(): Promise<NextStep> {
    return await this.#whileRunning(() =>
      this.#sentAcrossRuns(() => this.workflow.executeUpdate(refreshStepUpdate)),
    );
  }

  /**
   * Submits the device's answer to a native challenge, sealed under the verification's data key
   * (the device's answer may carry the person's credential): the update's argument and the
   * activity's input in history are then unreadable once the redaction destroys the key. A
   * verification of release 1.0.0 (its progress does not say `takesSealedTokens`) takes it as it is.
   * Sealing needs the store and the deployment's keyring, as reading the results does.
   */
  async submitNativeChallenge(responseToken: string): Promise<VerificationProgress> {
    return await this.#whileRunning(async () => {
      // An ended verification is told from Temporal, not asked by a query (no worker need answer).
      const { status } = await this.workflow.describe();
      if (status.name !== 'RUNNING') throw this.#endedError();
      const { dataKeyId, takesSealedTokens } = await this.workflow.query(progressQuery);
      // No token at all is refused by the workflow as it comes: there is nothing to seal.
      const sealing = takesSealedTokens && typeof responseToken === 'string' && responseToken.length > 0;
      const token = sealing ? await this.dataKeys.seal(dataKeyId, responseToken) : responseToken;
      return await this.#sentAcrossRuns(() =>
        this.workflow.executeUpdate(submitNativeChallengeUpdate, { args: [token] }),
      );
    });
  }

  /** Tells the workflow the user came back through the redirect, so it checks at once. */
  async redirectCaptured(): Promise<void> {
    await this.#whileRunning(() => this.workflow.signal(redirectCapturedSignal));
  }

  /**
   * Cancels the verification and its session at the service; answers its progress once it has
   * ended. A reason is kept in its history sealed under its data key (free text may name the
   * person), so its redaction leaves it readable to no one; it is left out when it cannot be
   * sealed (the store or the keyring away). A verification of release 1.0.0 is sent it as it is.
   */
  async cancel(reason?: string): Promise<VerificationProgress> {
    return await this.#whileRunning(async () => {
      const sent = reason ? await this.#sealedReason(reason) : '';
      return await this.workflow.executeUpdate(cancelUpdate, { args: [sent] });
    });
  }

  /**
   * Waits for the outcome, its identity data opened with the verification's data key; once
   * redacted (the key destroyed) the outcome has `identityRedacted: true` and no identity.
   * Confirms the delivery (see {@link confirmDelivery}) unless `confirmDelivery: false`.
   */
  async result(options: { confirmDelivery?: boolean } = {}): Promise<VerificationOutcome> {
    let sealed: SealedVerificationOutcome;
    try {
      sealed = await this.workflow.result();
    } catch (error) {
      const record = await this.#recordInstead(error);
      if (record.status === 'started')
        throw new VerificationEndedError(
          record.redactedAt === undefined
            ? `verification ${this.reference} is gone from Temporal and its record has no ending`
            : `verification ${this.reference} never ran and was erased (${record.redactedAt})`,
          { cause: error },
        );
      // The history, and the identity sealed in it, are gone: the outcome as recorded.
      return {
        status: record.status,
        ...(record.errorCode ? { errorCode: record.errorCode } : {}),
        ...(record.sessionId ? { sessionId: record.sessionId } : {}),
        fromRecord: true,
      };
    }
    const { identity, ...outcome } = sealed;
    if (identity === undefined) return outcome;
    let opened: VerificationOutcome;
    try {
      opened = { ...outcome, identity: (await this.dataKeys.open(identity)) as Record<string, unknown> };
    } catch (error) {
      if (error instanceof DataKeyDestroyedError) return { ...outcome, identityRedacted: true };
      throw error;
    }
    if (options.confirmDelivery !== false && outcome.sessionId) await this.confirmDelivery(outcome.sessionId);
    return opened;
  }

  /**
   * Tells the redaction that the results were received, so one due right after delivery
   * (`redactAfter: 0`) runs now instead of after its grace of an hour. `result()` does it, unless
   * asked not to (to read attachments first). Nothing happens when the redaction has already run.
   */
  async confirmDelivery(sessionId: string): Promise<void> {
    try {
      await this.workflow.client.getHandle(redactionWorkflowId({ sessionId })).signal(resultsDeliveredSignal);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }

  /** The record, when `error` says Temporal no longer keeps the workflow; otherwise `error` again. */
  async #recordInstead(error: unknown): Promise<VerificationRecord> {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    const record = await this.records.get(this.reference);
    if (!record) throw error;
    return record;
  }

  /**
   * The cancel's reason as history may keep it: sealed under the data key (as it is for a
   * verification of release 1.0.0), or left out when it cannot be sealed (the store or the
   * keyring away, the key gone): the cancel matters more than its reason.
   */
  async #sealedReason(reason: string): Promise<string | Sealed> {
    try {
      const { dataKeyId, takesSealedTokens } = await this.workflow.query(progressQuery);
      return takesSealedTokens ? await this.dataKeys.seal(dataKeyId, reason) : reason;
    } catch {
      return '';
    }
  }

  /** Sends an update, again when it was refused because the verification was moving to its next run. */
  async #sentAcrossRuns<T>(send: () => Promise<T>): Promise<T> {
    return await sentAcrossRuns(send, verificationFailureTypes.movingOn);
  }

  /**
   * Sends a message, turning "the verification has ended" into {@link VerificationEndedError}:
   * the workflow's own refusal (failure type `VerificationEnded`), or a workflow that is closed.
   */
  async #whileRunning<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (await this.#ended(error)) throw this.#endedError(error);
      throw error;
    }
  }

  #endedError(cause?: unknown): VerificationEndedError {
    return new VerificationEndedError(
      `verification ${this.reference} has already ended`,
      cause === undefined ? undefined : { cause },
    );
  }

  async #ended(error: unknown): Promise<boolean> {
    // Its data key is destroyed only by its redaction, once it has ended.
    if (error instanceof DataKeyDestroyedError) return true;
    if (refusedAs(error, verificationFailureTypes.ended)) return true;
    if (!(error instanceof WorkflowNotFoundError)) return false;
    // Not found: either it never existed (rethrown as is) or it has closed.
    const description = await this.workflow.describe().catch(() => undefined);
    return description !== undefined && description.status.name !== 'RUNNING';
  }
}

/** A verification's progress as its record tells it. */
function progressOfRecord(record: VerificationRecord): VerificationProgress {
  return {
    reference: record.reference,
    dataKeyId: record.dataKeyId,
    status: record.status === 'started' ? 'starting' : record.status,
    ...(record.sessionId ? { sessionId: record.sessionId } : {}),
    ...(record.errorCode ? { errorCode: record.errorCode } : {}),
    startedAt: record.startedAt,
    updatedAt: record.redactedAt ?? record.endedAt ?? record.startedAt,
    deadline: record.endedAt ?? record.startedAt,
    apiCalls: {},
    orphanSweep: false,
    fromRecord: true,
  };
}
