import {
  type Client,
  WorkflowFailedError,
  type WorkflowHandle,
  type WorkflowExecutionStatusName,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { connectionIdSchema, onboardingWorkflowId } from '../domain/agent-deliveries';
import { tenantProblem } from '../domain/agent-tenants';
import { type OnboardingInput, onboardingInputProblems } from '../domain/onboarding';
import { ONBOARDING_ALREADY_VERIFIED } from '../shared/failure-types';
import {
  type OnboardingProgress,
  onboardingProgressQuery,
  type OnboardingSummary,
} from '../shared/onboarding-messages';
import { innermostMessage } from '../../common/failure-message';
import { agentPlatformWorkflowTypes, type OnboardingWorkflow } from '../shared/workflows';
import { onboardingMetadata } from '../shared/metadata';

/** A closed run's status, as `OnboardingProgress.stoppedAs` says it. */
const stoppedStatuses: Partial<Record<WorkflowExecutionStatusName, OnboardingProgress['stoppedAs']>> = {
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed-out',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

/** Why an {@link OnboardingError} was thrown. */
export const onboardingErrorCodes = {
  /** The input is invalid; nothing was started. */
  invalidInput: 'InvalidOnboardingInput',
  /** No onboarding of that connection exists. */
  notFound: 'OnboardingNotFound',
  /** The onboarding was cancelled (its verification, if any, too). */
  cancelled: 'OnboardingCancelled',
  /** Started again by hand, but the connection's verification has run already (one per connection, ever). */
  alreadyVerified: ONBOARDING_ALREADY_VERIFIED,
  /** The onboarding failed (terminated, or a failure of its own); the message says why. */
  failed: 'OnboardingFailed',
} as const;

/** Thrown when an onboarding cannot be started, found or completed; `code` says which, the message why. */
export class OnboardingError extends Error {
  override readonly name = 'OnboardingError';
  constructor(
    readonly code: (typeof onboardingErrorCodes)[keyof typeof onboardingErrorCodes],
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Options of {@link OnboardingClient}. */
export interface OnboardingClientOptions {
  /** A Temporal client with the workers' data converter. */
  client: Client;
  /** @default 'identity-verification' */
  taskQueue?: string;
}

/**
 * The onboardings of connections (`idv-onboarding-<tenant>-<connectionId>`), for a business
 * service that starts one itself rather than through the receiver, or follows one.
 */
export class OnboardingClient {
  readonly #client: Client;
  readonly #taskQueue: string;

  constructor(options: OnboardingClientOptions) {
    this.#client = options.client;
    this.#taskQueue = options.taskQueue ?? 'identity-verification';
  }

  /**
   * Starts the connection's onboarding, or joins the one running. One that has ended (timed out,
   * say) can be started again; a connection already verified fails `OnboardingAlreadyVerified`.
   * Invalid input throws before anything starts.
   */
  async start(input: OnboardingInput): Promise<{ workflowId: string; runId: string }> {
    const problems = onboardingInputProblems(input);
    if (problems.length > 0)
      throw new OnboardingError(
        onboardingErrorCodes.invalidInput,
        `invalid onboarding input: ${problems.join('; ')}`,
      );
    const handle = await this.#client.workflow.start<OnboardingWorkflow>(
      agentPlatformWorkflowTypes.onboarding,
      {
        workflowId: onboardingWorkflowId(input.tenant, input.connectionId),
        taskQueue: this.#taskQueue,
        args: [input],
        ...onboardingMetadata(input.tenant, input.connectionId),
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowIdConflictPolicy: 'USE_EXISTING',
      },
    );
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }

  /**
   * Where the onboarding stands (also once it has ended, while a worker answers queries). A run
   * ended from outside (terminated, timed out) answers its query with the stage it stopped in:
   * unless that is an end of its own (`done`, `refused`), its status is read, and such a run is
   * `stopped`.
   */
  async progress(tenant: string, connectionId: string): Promise<OnboardingProgress> {
    const handle = this.#handle(tenant, connectionId);
    try {
      // The run described is the run asked: a run may continue as new, or another start, between.
      const { runId, status } = await handle.describe();
      const progress = await this.#client.workflow
        .getHandle<OnboardingWorkflow>(handle.workflowId, runId)
        .query(onboardingProgressQuery);
      if (progress.stage === 'done' || progress.stage === 'refused') return progress;
      const stoppedAs = stoppedStatuses[status.name];
      return stoppedAs ? { ...progress, stage: 'stopped', stoppedAs } : progress;
    } catch (error) {
      throw this.#failure(error, handle.workflowId);
    }
  }

  /** Waits for the onboarding's summary; a cancelled or failed one throws {@link OnboardingError}. */
  async result(tenant: string, connectionId: string): Promise<OnboardingSummary> {
    const handle = this.#handle(tenant, connectionId);
    try {
      return await handle.result();
    } catch (error) {
      throw this.#failure(error, handle.workflowId);
    }
  }

  /**
   * Asks the onboarding to cancel: its verification is cancelled (and the session at the service)
   * before it ends cancelled. Resolves once asked; `result` waits for the end.
   */
  async cancel(tenant: string, connectionId: string): Promise<void> {
    const handle = this.#handle(tenant, connectionId);
    try {
      await handle.cancel();
    } catch (error) {
      throw this.#failure(error, handle.workflowId);
    }
  }

  #handle(tenant: string, connectionId: string): WorkflowHandle<OnboardingWorkflow> {
    const problem =
      tenantProblem(tenant) ??
      (connectionIdSchema.safeParse(connectionId).success ? undefined : 'connectionId is invalid');
    if (problem) throw new OnboardingError(onboardingErrorCodes.invalidInput, problem);
    return this.#client.workflow.getHandle<OnboardingWorkflow>(onboardingWorkflowId(tenant, connectionId));
  }

  #failure(error: unknown, workflowId: string): unknown {
    if (error instanceof WorkflowNotFoundError)
      return new OnboardingError(onboardingErrorCodes.notFound, `no onboarding ${workflowId}`, {
        cause: error,
      });
    if (error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure)
      return new OnboardingError(onboardingErrorCodes.cancelled, `onboarding ${workflowId} was cancelled`, {
        cause: error,
      });
    if (
      error instanceof WorkflowFailedError &&
      error.cause instanceof ApplicationFailure &&
      error.cause.type === onboardingErrorCodes.alreadyVerified
    )
      return new OnboardingError(onboardingErrorCodes.alreadyVerified, innermostMessage(error), {
        cause: error,
      });
    if (error instanceof WorkflowFailedError)
      return new OnboardingError(
        onboardingErrorCodes.failed,
        `onboarding ${workflowId} failed: ${innermostMessage(error)}`,
        { cause: error },
      );
    return error;
  }
}
