import { type NormalisedSessionState } from '../domain/session-status';
import {
  type NextStep,
  type VerificationInput,
  type VerificationProgress,
  type VerificationStatus,
} from '../domain/verification';

/** How a verification ended, before results are attached. */
export interface Ending {
  status: VerificationStatus;
  errorCode?: string;
}

/** The verification's state inside the workflow: what `progress` answers. Pure and deterministic. */
export class SessionState {
  readonly progress: VerificationProgress;
  ending: Ending | undefined;
  createFailure: Error | undefined;
  redirectPending = false;
  deadlinePassed = false;

  constructor(input: VerificationInput, now: number) {
    const at = new Date(now).toISOString();
    this.progress = {
      reference: input.reference,
      status: 'starting',
      startedAt: at,
      updatedAt: at,
      deadline: new Date(now + input.timeout).toISOString(),
      apiCalls: {},
      orphansCancelled: 0,
    };
  }

  get sessionId(): string | undefined {
    return this.progress.sessionId;
  }

  get done(): boolean {
    return this.ending !== undefined;
  }

  /** Records the created session and its first step. */
  created(sessionId: string, collectionMethod: string, step: NextStep, now: number): void {
    Object.assign(this.progress, { sessionId, collectionMethod, nextStep: step, status: 'pending' });
    this.touch(now);
  }

  /** Replaces the step (after a refresh). */
  step(step: NextStep, now: number): void {
    this.progress.nextStep = step;
    this.touch(now);
  }

  /**
   * Ends the verification from the service's state; the first ending wins. `asTimeout` marks a
   * cancellation the workflow made because its deadline passed.
   */
  finish(state: NormalisedSessionState, now: number, asTimeout = false): void {
    if (this.ending || !state.done) return;
    const status: VerificationStatus =
      state.status === 'succeeded'
        ? 'succeeded'
        : state.status === 'expired' || (asTimeout && state.status === 'cancelled')
          ? 'timed-out'
          : state.status === 'cancelled'
            ? 'cancelled'
            : 'failed';
    this.ending = { status, ...(state.errorCode ? { errorCode: state.errorCode } : {}) };
    this.progress.status = status;
    if (state.errorCode) this.progress.errorCode = state.errorCode;
    this.touch(now);
  }

  /** Counts API calls by operation. */
  count(operation: string, calls = 1): void {
    this.progress.apiCalls[operation] = (this.progress.apiCalls[operation] ?? 0) + calls;
  }

  touch(now: number): void {
    this.progress.updatedAt = new Date(now).toISOString();
  }
}
