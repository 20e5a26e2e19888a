import { type WorkflowHandle } from '@temporalio/client';
import { type NextStep, type VerificationOutcome, type VerificationProgress } from '../domain/verification';
import {
  cancelUpdate,
  type NextStepAnswer,
  nextStepUpdate,
  progressQuery,
  redirectCapturedSignal,
  refreshStepUpdate,
  submitNativeChallengeUpdate,
} from '../workflows/messages';
import { type verificationSession } from '../workflows/verification-session';

/** Thrown when a message is sent to a verification that has already ended. */
export class VerificationEndedError extends Error {
  override readonly name = 'VerificationEndedError';
}

async function whileRunning<T>(reference: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof Error && /already completed/i.test(error.message)) {
      throw new VerificationEndedError(`verification ${reference} has already ended`, { cause: error });
    }
    throw error;
  }
}

/** A running or finished verification, addressed by its business reference. */
export class VerificationHandle {
  constructor(
    readonly reference: string,
    readonly workflow: WorkflowHandle<typeof verificationSession>,
  ) {}

  /** The workflow ID (`idv-<reference>`). */
  get workflowId(): string {
    return this.workflow.workflowId;
  }

  /** The step to hand to the user; waits until the session exists. */
  async nextStep(): Promise<NextStepAnswer> {
    return await whileRunning(this.reference, () => this.workflow.executeUpdate(nextStepUpdate));
  }

  /** Live progress (status, step, timestamps, API call counts). */
  async progress(): Promise<VerificationProgress> {
    return await this.workflow.query(progressQuery);
  }

  /** Refreshes the step's content now and answers the new step. */
  async refreshStep(): Promise<NextStep> {
    return await whileRunning(this.reference, () => this.workflow.executeUpdate(refreshStepUpdate));
  }

  /** Submits the device's answer to a native challenge. */
  async submitNativeChallenge(responseToken: string): Promise<VerificationProgress> {
    return await whileRunning(this.reference, () =>
      this.workflow.executeUpdate(submitNativeChallengeUpdate, { args: [responseToken] }),
    );
  }

  /** Tells the workflow the user came back through the redirect, so it checks at once. */
  async redirectCaptured(): Promise<void> {
    await whileRunning(this.reference, () => this.workflow.signal(redirectCapturedSignal));
  }

  /** Cancels the verification and its session at the service. */
  async cancel(reason?: string): Promise<VerificationProgress> {
    return await whileRunning(this.reference, () =>
      this.workflow.executeUpdate(cancelUpdate, { args: [reason ?? ''] }),
    );
  }

  /** Waits for the outcome. */
  async result(): Promise<VerificationOutcome> {
    return await this.workflow.result();
  }
}
