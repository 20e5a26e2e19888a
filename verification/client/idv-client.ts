import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import {
  FINAL_URL_MEMO,
  recordOfStart,
  type VerificationInput,
  type VerificationProgress,
  type VerificationRequest,
} from '../domain/verification';
import { type NextStepAnswer, nextStepUpdate } from '../shared/messages';
import { verificationWorkflowId } from '../shared/ids';
import {
  creationCloseMetadata,
  orphanSweepMetadata,
  redactionMetadata,
  verificationMetadata,
} from '../shared/metadata';
import { innermostMessage } from '../../common/failure-message';
import { IdvProfileId, IdvProvider } from '../../common/search-attributes';
import {
  type CreationCloseWorkflow,
  type OrphanSweepWorkflow,
  type RedactionReport,
  type SessionRedactionWorkflow,
  type VerificationSessionWorkflow,
  verificationWorkflowTypes,
} from '../shared/workflows';
import { redactionWorkflowId } from '../shared/ids';
import { DataKeyDestroyedError, DataKeys } from '../../codec/data-keys';
import { attachmentAad } from '../../codec/sealed';
import { type IdvStore } from '../../stores/idv-store';
import { prepareVerificationInput } from './prepare-input';
import { reserveReference } from './reserve-reference';
import { recordErasure } from './records';
import { referenceOfWorkflowId } from '../../common/workflow-ids';
import { TemporalKeyring } from '../../keyring/client';
import { type CreationToClose, type LookForOrphans, lookForOrphansSignal } from '../shared/messages';
import { creationCloseWorkflowId, orphanSweepWorkflowId } from '../shared/ids';
import { keyringQuery, keyringWorkflowId, rotateKeysSignal } from '../../keyring/shared';
import { canonicalProfileId } from '../../stores/session-vault';
import { VerificationEndedError, VerificationHandle } from './verification-handle';
import { queryValue } from '../../common/visibility-query';

/** Thrown when a verification has no session (it ended before the session was created). */
export class NoSessionError extends Error {
  override readonly name = 'NoSessionError';
}

/** Thrown when a reference names no verification: no workflow, and no record. */
export class VerificationNotFoundError extends Error {
  override readonly name = 'VerificationNotFoundError';
}

/** Thrown when the session of a new verification could not be created (the reason is in the message). */
export class VerificationNotStartedError extends Error {
  override readonly name = 'VerificationNotStartedError';
}

/** Options of {@link IdvClient}. */
export interface IdvClientOptions {
  /** A Temporal client whose data converter encrypts with the workers' payload keys (`encryptingDataConverter`). */
  client: Client;
  /** The store the workers use (`openStore`): the verifications' data keys and stored attachments. */
  store: IdvStore;
  /** @default 'identity-verification' */
  taskQueue?: string;
  /**
   * Seal the person's `browserLanguages` under the verification's data key, as `providerInput`
   * is, so no history keeps them readable. Workers of release 1.0.0 refuse them sealed: turn it
   * on once every worker of the task queue runs a later release. @default false
   */
  sealBrowserLanguages?: boolean;
}

/** Filter of {@link IdvClient.listVerifications}; all on search attributes, none personal. */
export interface VerificationFilter {
  status?: VerificationProgress['status'];
  verificationProfileId?: string;
  provider?: string;
  /** @default 100 */
  limit?: number;
}

/** What {@link IdvClient.keyringStatus} answers (ids and times only). */
export interface KeyringStatus {
  workflowId: string;
  /** The keys it holds, the current one last. */
  keyIds: string[];
  lastRotation?: { startedAt: string; completedAt: string };
  nextRotationAt: string;
  /**
   * Why the keyring asks for attention, if it does: a rotation that could not re-wrap, or whose
   * earlier runs (holding the retired keys) could not be deleted from Temporal.
   */
  attention?: string;
  /**
   * Whether the keyring's runs before the current one, holding the keys a rotation retired, are
   * deleted from Temporal (asked and accepted: Temporal removes them shortly after; absent from
   * workers that do not say).
   */
  earlierRunsDeleted?: boolean;
}

/** A verification found by {@link IdvClient.listVerifications}. */
export interface VerificationSummary {
  reference: string;
  workflowId: string;
  status: string | undefined;
  sessionId: string | undefined;
  provider: string | undefined;
  startedAt: string;
  closedAt: string | undefined;
}

/** The client business services use to run identity verifications on Temporal. */
export class IdvClient {
  readonly client: Client;
  readonly taskQueue: string;
  readonly #store: IdvStore;
  readonly #dataKeys: DataKeys;
  readonly #prepareOptions: { sealBrowserLanguages: boolean };

  constructor(options: IdvClientOptions) {
    this.client = options.client;
    this.taskQueue = options.taskQueue ?? 'identity-verification';
    this.#store = options.store;
    this.#prepareOptions = { sealBrowserLanguages: options.sealBrowserLanguages === true };
    this.#dataKeys = new DataKeys(
      options.store.dataKeys,
      new TemporalKeyring({ client: options.client, taskQueue: this.taskQueue }),
    );
  }

  /**
   * The workflow input of a request, sealed (validated, data key created, `providerInput`
   * sealed): for a business workflow that runs the verification as a child (`runVerification`).
   */
  async prepareInput(request: VerificationRequest): Promise<VerificationInput> {
    const input = await prepareVerificationInput(request, this.#dataKeys, this.#prepareOptions);
    // The key of an earlier prepare taken over stays: its input may be started yet (a handler
    // retried after its answer was lost) and run. The record keeps it, and the redaction of the
    // verification that runs destroys it.
    await this.#reserve(input, { keepPrevious: true });
    return input;
  }

  /** Destroys the data key of a prepared input that will not be started (see {@link prepareInput}). */
  async discardInput(input: VerificationInput): Promise<void> {
    await this.#dataKeys.destroy(input.dataKeyId);
  }

  /**
   * Starts a verification (or joins the running one with the same reference) and waits until
   * its session exists: one round trip gives the handle and the step to hand to the user.
   * Invalid input throws `InvalidVerificationRequestError` before anything is started; a
   * reference whose verification has ended throws `VerificationEndedError`.
   */
  async startVerification(
    request: VerificationRequest,
  ): Promise<{ handle: VerificationHandle; nextStep: NextStepAnswer }> {
    // Validated before anything is created; then its data key is made and providerInput sealed.
    const input = await prepareVerificationInput(request, this.#dataKeys, this.#prepareOptions);
    // The key of an earlier start taken over goes once this start's run is the one that runs: that
    // start may be under way still (two starts of one reference at once), and win.
    const previousDataKeyId = await this.#reserve(input, { keepPrevious: true });
    const workflowId = verificationWorkflowId(input.reference);
    const metadata = verificationMetadata(input);
    const startWorkflowOperation = new WithStartWorkflowOperation<VerificationSessionWorkflow>(
      verificationWorkflowTypes.session,
      {
        workflowId,
        taskQueue: this.taskQueue,
        args: [input],
        ...metadata,
        workflowIdConflictPolicy: 'USE_EXISTING',
        // One reference, one verification: a finished one is never started again (no second session).
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          ...metadata.typedSearchAttributes,
          { key: IdvProfileId, value: input.verificationProfileId },
          { key: IdvProvider, value: input.provider },
        ],
        ...(input.finalUrl ? { memo: { [FINAL_URL_MEMO]: input.finalUrl } } : {}),
      },
    );
    let nextStep: NextStepAnswer;
    try {
      nextStep = await this.client.workflow.executeUpdateWithStart(nextStepUpdate, {
        startWorkflowOperation,
      });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        // Refused before it started: the key made for it sealed nothing anyone keeps.
        await this.#dataKeys.destroy(input.dataKeyId);
        throw new VerificationEndedError(
          `verification ${input.reference} has already ended: read its outcome with getVerification(), or start a new reference`,
          { cause: error },
        );
      }
      if (error instanceof WorkflowUpdateFailedError) {
        const reason = innermostMessage(error);
        throw new VerificationNotStartedError(`verification ${input.reference} could not start: ${reason}`, {
          cause: error,
        });
      }
      throw error;
    }
    // Joined a running verification: it has its own key; the one made for this call goes.
    if (nextStep.dataKeyId && nextStep.dataKeyId !== input.dataKeyId)
      await this.#dataKeys.destroy(input.dataKeyId);
    else if (previousDataKeyId !== undefined && previousDataKeyId !== input.dataKeyId)
      await this.#dataKeys.destroy(previousDataKeyId);
    const workflow = await startWorkflowOperation.workflowHandle();
    return {
      handle: new VerificationHandle(input.reference, workflow, this.#dataKeys, this.#store.records),
      nextStep,
    };
  }

  /**
   * Keeps the reference for this verification (see `reserveReference`): a reference whose
   * verification ran is refused (its key made for this call destroyed); one whose earlier start
   * never ran is taken over (that start's key destroyed, or with `keepPrevious` answered, for the
   * caller to destroy once its own start proved to be the one that runs).
   */
  async #reserve(
    input: VerificationInput,
    options: { keepPrevious?: boolean } = {},
  ): Promise<string | undefined> {
    const workflowId = verificationWorkflowId(input.reference);
    const reservation = await reserveReference(
      { records: this.#store.records, vault: this.#store.vault, dataKeys: this.#dataKeys },
      recordOfStart(input),
      { workflowId, client: this.client },
    );
    if (reservation.kind === 'restarted' && reservation.previousDataKeyId !== input.dataKeyId) {
      if (options.keepPrevious) return reservation.previousDataKeyId;
      await this.#dataKeys.destroy(reservation.previousDataKeyId);
    }
    if (reservation.kind !== 'used') return undefined;
    await this.#dataKeys.destroy(input.dataKeyId);
    const { record } = reservation;
    throw new VerificationEndedError(
      record.status === 'started' && record.redactedAt !== undefined
        ? `verification ${input.reference} was erased (${record.redactedAt}): start a new reference`
        : record.status === 'started'
          ? `verification ${input.reference} ran and Temporal no longer keeps it (its record has no ending: see idv records): start a new reference`
          : `verification ${input.reference} has already ended (${record.status}${record.errorCode ? `, ${record.errorCode}` : ''}, ${record.endedAt ?? 'time unknown'}): read it with getVerification(), or start a new reference`,
    );
  }

  /**
   * Redacts a verification's session now. A verification still running is cancelled first (its
   * session too) and waited for, so nothing can bring data back after the redaction. Works
   * from the verification's record once Temporal no longer keeps its workflow.
   */
  async redactVerification(reference: string): Promise<RedactionReport> {
    const handle = this.getVerification(reference);
    const description = await handle.workflow.describe().catch((error: unknown) => {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      return undefined;
    });
    if (description === undefined) return await this.#redactFromRecord(reference);
    let status = description.status.name;
    if (status === 'RUNNING') {
      await handle.cancel().catch((error: unknown) => {
        if (!(error instanceof VerificationEndedError)) throw error;
      });
      // Its clean-up has run once the workflow closed, however it closed (unless terminated).
      await handle.result().catch(() => undefined);
      status = (await handle.workflow.describe()).status.name;
    }
    const { sessionId, dataKeyId } = await handle.progress();
    // Terminated, it ran none of its clean-up: its creation is closed, after the redaction, so a
    // session the service creates for it later (an attempt under way, an answer lost) is swept.
    const profileId = description.typedSearchAttributes.get(IdvProfileId);
    const closeCreation = async () => {
      if (status === 'TERMINATED' && profileId !== undefined)
        await this.#closeCreation(profileId, {
          workflowId: handle.workflowId,
          ...(sessionId ? { keptSessionId: sessionId } : {}),
        });
    };
    if (!sessionId) {
      // Nothing at the service; the start input's sealed providerInput goes with the data key.
      if (dataKeyId) await this.#dataKeys.destroy(dataKeyId);
      await recordErasure(this.#store, this.#dataKeys, reference, new Date().toISOString(), { dataKeyId });
      await closeCreation();
      throw new NoSessionError(
        `verification ${reference} has no session to redact (its data key is destroyed)`,
      );
    }
    const report = await this.redactNow(sessionId, dataKeyId, reference);
    await closeCreation();
    return report;
  }

  /**
   * Starts the workflow that closes a verification's creation and asks the profile's sweep when a
   * session may still come (`creationClose`), unless it runs or ran already.
   */
  async #closeCreation(verificationProfileId: string, close: CreationToClose): Promise<void> {
    const args = { verificationProfileId, close };
    await this.client.workflow
      .start<CreationCloseWorkflow>(verificationWorkflowTypes.creationClose, {
        workflowId: creationCloseWorkflowId(close.workflowId),
        taskQueue: this.taskQueue,
        args: [args],
        ...creationCloseMetadata(args),
      })
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      });
  }

  /** The redaction of a verification Temporal no longer keeps, from its record. */
  async #redactFromRecord(reference: string): Promise<RedactionReport> {
    const record = await this.#store.records.get(reference);
    if (!record)
      throw new VerificationNotFoundError(
        `no verification has the reference ${reference} (no workflow, no record)`,
      );
    if (record.sessionId) return await this.redactNow(record.sessionId, record.dataKeyId, reference);
    if (record.status !== 'started') {
      await recordErasure(this.#store, this.#dataKeys, reference, new Date().toISOString(), record);
      throw new NoSessionError(
        `verification ${reference} has no session to redact (its data key is destroyed)`,
      );
    }
    // No ending recorded: terminated (or its ending never written), so it ran none of its clean-up.
    // Only an ending names the session in the record; the vault holds the one it kept. Its
    // creation is closed, so a session the service creates for it later is swept.
    const workflowId = verificationWorkflowId(reference);
    const keptSessionId = (await this.#store.vault.creation(workflowId))?.keptSessionId;
    const closeCreation = () =>
      this.#closeCreation(record.verificationProfileId, {
        workflowId,
        ...(keptSessionId ? { keptSessionId } : {}),
      });
    // Closed first: a redaction that gives up (and throws) still leaves later sessions swept.
    await closeCreation();
    if (keptSessionId) return await this.redactNow(keptSessionId, record.dataKeyId, reference);
    await recordErasure(this.#store, this.#dataKeys, reference, new Date().toISOString(), record);
    throw new NoSessionError(
      `verification ${reference} has no session to redact (its data key is destroyed)`,
    );
  }

  /**
   * Redacts a session now (at the service, in the blob store, its key), replacing a redaction
   * that is still waiting for its delay. Idempotent. Prefer {@link redactVerification}, which
   * ends a running verification first.
   */
  async redactNow(sessionId: string, dataKeyId?: string, reference?: string): Promise<RedactionReport> {
    const args = {
      sessionId,
      delayMs: 0,
      ...(dataKeyId === undefined ? {} : { dataKeyId }),
      ...(reference === undefined ? {} : { reference }),
    };
    return await this.client.workflow.execute<SessionRedactionWorkflow>(verificationWorkflowTypes.redaction, {
      workflowId: redactionWorkflowId(args),
      taskQueue: this.taskQueue,
      args: [args],
      ...redactionMetadata(args),
      workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    });
  }

  /** The verification of a reference (running or finished). */
  getVerification(reference: string): VerificationHandle {
    const workflow = this.client.workflow.getHandle<VerificationSessionWorkflow>(
      verificationWorkflowId(reference),
    );
    return new VerificationHandle(reference, workflow, this.#dataKeys, this.#store.records);
  }

  /**
   * The content of a stored attachment (from `outcome.attachments`), streamed from the store and
   * opened with the verification's data key (stored sealed); undefined once it is redacted.
   */
  async readAttachment(sessionId: string, attachmentId: string): Promise<AsyncIterable<Buffer> | undefined> {
    const stored = await this.#store.blobs.read(sessionId, attachmentId);
    if (!stored) return undefined;
    const dataKeyId = await this.#store.vault.dataKeyOf(sessionId);
    if (!dataKeyId) {
      await stored[Symbol.asyncIterator]().return?.();
      return undefined;
    }
    try {
      return await this.#dataKeys.openStream(dataKeyId, attachmentAad(sessionId, attachmentId), stored);
    } catch (error) {
      await stored[Symbol.asyncIterator]().return?.();
      if (error instanceof DataKeyDestroyedError) return undefined;
      throw error;
    }
  }

  /** The keyring's state: its key ids (never the keys), its last and next rotation. */
  async keyringStatus(): Promise<KeyringStatus> {
    const workflowId = keyringWorkflowId(this.taskQueue);
    const view = await this.client.workflow.getHandle(workflowId).query(keyringQuery);
    return {
      workflowId,
      keyIds: view.keys.map((key) => key.id),
      ...(view.lastRotation
        ? {
            lastRotation: {
              startedAt: new Date(view.lastRotation.startedAt).toISOString(),
              completedAt: new Date(view.lastRotation.completedAt).toISOString(),
            },
          }
        : {}),
      nextRotationAt: new Date(view.nextRotationAt).toISOString(),
      ...(view.attention ? { attention: view.attention } : {}),
      ...(view.earlierRunsDeleted === undefined ? {} : { earlierRunsDeleted: view.earlierRunsDeleted }),
    };
  }

  /**
   * Asks the keyring to rotate now (after an erasure that must not wait for the schedule). The
   * data keys erased before `requestedAt` (this process's clock) are gone from every copy of the
   * store once a rotation that started after it has completed (`keyringStatus().lastRotation`)
   * and its earlier runs, which held the retired keys, are deleted from Temporal
   * (`earlierRunsDeleted`): one under way at the erasure may have re-wrapped the key under the
   * key-encryption key it keeps.
   */
  async rotateKeys(): Promise<{ requestedAt: string }> {
    const requestedAt = new Date().toISOString();
    await this.client.workflow.getHandle(keyringWorkflowId(this.taskQueue)).signal(rotateKeysSignal);
    return { requestedAt };
  }

  /**
   * Starts the orphan sweep of a verification profile, or asks the running one to look now (after
   * one gave up, once the service answers again). Resolves to the sweep's workflow ID.
   */
  async sweepOrphans(verificationProfileId: string): Promise<string> {
    const profileId = canonicalProfileId(verificationProfileId);
    const workflowId = orphanSweepWorkflowId(profileId);
    await this.client.workflow.signalWithStart<OrphanSweepWorkflow, [LookForOrphans?]>(
      verificationWorkflowTypes.orphanSweep,
      {
        workflowId,
        taskQueue: this.taskQueue,
        args: [{ verificationProfileId: profileId }],
        ...orphanSweepMetadata({ verificationProfileId: profileId }),
        signal: lookForOrphansSignal,
        signalArgs: [],
      },
    );
    return workflowId;
  }

  /** Verifications matching a filter, as the server lists them: running ones first, then ended ones, newest first in each (a visibility query on search attributes). */
  async listVerifications(filter: VerificationFilter = {}): Promise<VerificationSummary[]> {
    const clauses = [`WorkflowType = '${verificationWorkflowTypes.session}'`];
    if (filter.status) clauses.push(`IdvStatus = ${queryValue(filter.status)}`);
    if (filter.verificationProfileId)
      clauses.push(`IdvProfileId = ${queryValue(filter.verificationProfileId)}`);
    if (filter.provider) clauses.push(`IdvProvider = ${queryValue(filter.provider)}`);
    const summaries: VerificationSummary[] = [];
    for await (const execution of this.client.workflow.list({ query: clauses.join(' AND ') })) {
      const attribute = (name: string) => {
        const value = execution.searchAttributes[name];
        return Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
      };
      summaries.push({
        reference: referenceOfWorkflowId(execution.workflowId) ?? execution.workflowId,
        workflowId: execution.workflowId,
        status: attribute('IdvStatus'),
        sessionId: attribute('IdvSessionId'),
        provider: attribute('IdvProvider'),
        startedAt: execution.startTime.toISOString(),
        closedAt: execution.closeTime?.toISOString(),
      });
      if (summaries.length >= (filter.limit ?? 100)) break;
    }
    return summaries;
  }
}
