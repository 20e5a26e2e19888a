import { MAX_DATE_MS } from '../../common/durations';
import { type NormalisedSessionState } from '../domain/session-status';
import type { FetchedResults } from '../activities/result-activities';
import { type Sealed } from '../../codec/sealed';
import { markdownLines } from '../../common/user-metadata';
import type { VerificationInput } from '../domain/verification';
import {
  verificationErrorCodes,
  type AttachmentRef,
  type NextStep,
  type SealedVerificationOutcome,
  type VerificationProgress,
  type VerificationStatus,
} from '../domain/outcome';

/** How a verification ended, before results are attached. */
export interface Ending {
  status: VerificationStatus;
  errorCode?: string;
}

/** What a run hands to the next one when it continues as new (plain JSON). */
export interface CarriedVerification {
  progress: VerificationProgress;
  sessionDone: boolean;
  redirectPending: boolean;
  refreshStopped: boolean;
  /** Automatic refreshes refused in a row (see {@link MAX_REFRESH_REFUSALS}; runs before it: absent). */
  refreshRefusals?: number;
  /** When the step was last refreshed, and when a failed refresh is tried again (runs before these: absent). */
  lastRefreshAtMs?: number;
  refreshRetryAtMs?: number;
}

/** When the person's data is redacted, as the clean-up scheduled it. */
export type RedactionPlan = ({ dueAt: string } | { afterDelivery: true } | { never: true }) & {
  /** The workflow that redacts (its own details say when it is done). */
  workflowId?: string;
};

/** Shortest time between two automatic refreshes of a step. */
export const MIN_REFRESH_GAP_MS = 1_000;

/**
 * Automatic refreshes stop after this many refusals (refused for good, or answered 404 while the
 * session is there) with no refresh succeeding between them: a step the service will not refresh
 * is not asked every half minute until the deadline. A refresh that succeeds (the caller's own)
 * starts them again.
 */
export const MAX_REFRESH_REFUSALS = 3;

/** The verification's state inside the workflow: what `progress` answers. Pure and deterministic. */
export class SessionState {
  readonly #progress: VerificationProgress;
  #ending: Ending | undefined;
  #createFailure: Error | undefined;
  #refusedWhy: string | undefined;
  #cancelRequested: string | undefined;
  #redirectPending = false;
  #closing = false;
  #movingOn = false;
  #sessionDone = false;
  // Not carried: the verification ends in the run that takes the session for gone.
  #sessionTakenForGone = false;
  #cancelTried = false;
  #refreshStopped = false;
  #refreshRefusals = 0;
  #refreshRetryAtMs: number | undefined;
  #lastRefreshAtMs: number | undefined;
  #identity: Sealed | undefined;
  #attachments: AttachmentRef[] | undefined;
  #wakeAt: { atMs: number; why: string } | undefined;
  #redaction: RedactionPlan | undefined;
  #closed = false;
  readonly #changed: () => void;

  /** `changed` is told after every change of what {@link details} says. */
  constructor(input: VerificationInput, now: number, carried?: CarriedVerification, changed?: () => void) {
    this.#changed = changed ?? (() => undefined);
    if (carried) {
      this.#progress = carried.progress;
      this.#sessionDone = carried.sessionDone;
      this.#redirectPending = carried.redirectPending;
      this.#refreshStopped = carried.refreshStopped;
      this.#refreshRefusals = carried.refreshRefusals ?? 0;
      this.#lastRefreshAtMs = carried.lastRefreshAtMs;
      this.#refreshRetryAtMs = carried.refreshRetryAtMs;
      this.#progress.dataKeyId = input.dataKeyId;
      this.#progress.takesSealedTokens = true;
      return;
    }
    const at = new Date(now).toISOString();
    // Built before the input is checked (the handlers need it in the first activation): a
    // timeout out of every bound makes no date here, and the check then ends the run.
    const deadlineMs = now + input.timeout;
    const deadline = Number.isFinite(deadlineMs) && Math.abs(deadlineMs) <= MAX_DATE_MS ? deadlineMs : now;
    this.#progress = {
      reference: input.reference,
      dataKeyId: input.dataKeyId,
      status: 'starting',
      startedAt: at,
      updatedAt: at,
      deadline: new Date(deadline).toISOString(),
      apiCalls: {},
      orphanSweep: false,
      takesSealedTokens: true,
    };
  }

  /** What the `progress` query answers (a copy: only the transitions below change it). */
  get progress(): VerificationProgress {
    return { ...this.#progress, apiCalls: { ...this.#progress.apiCalls } };
  }

  /** How it ended, once it has. */
  get ending(): Ending | undefined {
    return this.#ending;
  }

  /** Why the session could not be created (answered to `nextStep` callers). */
  get createFailure(): Error | undefined {
    return this.#createFailure;
  }

  /** The reason of a `cancel` update not carried out yet; the main flow cancels at the service. */
  get cancelRequested(): string | undefined {
    return this.#cancelRequested;
  }

  /** The user came back from a redirect and the session has not been checked since. */
  get redirectPending(): boolean {
    return this.#redirectPending;
  }

  /** True once clean-up began: handlers waiting for the session stop waiting. */
  get closing(): boolean {
    return this.#closing;
  }

  /**
   * True while this run waits for its handlers to finish before it continues as new: updates
   * that call the service are refused meanwhile, so the wait ends (they reach the next run).
   */
  get movingOn(): boolean {
    return this.#movingOn;
  }

  /**
   * The service said the session is done (or no longer knows it): there is nothing to end. An
   * ending of our own (a refusal, a defect, a cancel that failed) leaves it false, so clean-up
   * hands the session to a redaction that ends it.
   */
  get sessionDone(): boolean {
    return this.#sessionDone;
  }

  /** The session counts as done only because the service answered that it does not know it. */
  get sessionTakenForGone(): boolean {
    return this.#sessionTakenForGone;
  }

  /** Sealed identity data, once fetched. */
  get identity(): Sealed | undefined {
    return this.#identity;
  }

  /** Stored attachments, once fetched. */
  get attachments(): AttachmentRef[] | undefined {
    return this.#attachments;
  }

  /** A `cancel` update asked for the verification to end (the first reason is kept). */
  requestCancel(reason: string): void {
    this.#cancelRequested ??= reason;
    this.#changed();
  }

  /** The user came back through the redirect: the session is checked at once (unless it is done). */
  redirectCaptured(): void {
    if (!this.done) this.#redirectPending = true;
    this.#changed();
  }

  /** The session is being checked after a return. */
  redirectChecked(): void {
    this.#redirectPending = false;
    this.#changed();
  }

  /** Creation failed: `nextStep` callers are answered with why. */
  creationFailed(failure: Error): void {
    this.#createFailure = failure;
    this.#changed();
  }

  /** Refused before anything ran, for `why` (its input): creation failed with `failure`. */
  inputRefused(failure: Error, why: string): void {
    this.#refusedWhy = why;
    this.creationFailed(failure);
  }

  /** This run waits for its handlers before it continues as new (see {@link movingOn}). */
  moveOn(): void {
    this.#movingOn = true;
    this.#changed();
  }

  /** This run goes on after all (a cancel, the deadline or the outcome came while it waited). */
  stayOn(): void {
    this.#movingOn = false;
    this.#changed();
  }

  /** The clean-up began. */
  beginClosing(): void {
    this.#closing = true;
    this.#changed();
  }

  /** The main flow waits until `atMs` (or something happens first) for the reason `why`. */
  waitsUntil(atMs: number, why: string): void {
    this.#wakeAt = { atMs, why };
    this.#changed();
  }

  /** The clean-up scheduled the redaction. */
  redactionScheduled(plan: RedactionPlan): void {
    this.#redaction = plan;
    this.#changed();
  }

  /** The clean-up ran to its end: the outcome is final. */
  closed(): void {
    this.#closed = true;
    this.#changed();
  }

  /**
   * What the Temporal UI shows as the workflow's current details: the status, what it does or
   * waits for, the deadline, the ending and the redaction. No personal data, and not the step's
   * URL (a bearer link to the person's session).
   */
  details(): string {
    const progress = this.#progress;
    const calls = Object.values(progress.apiCalls).reduce((sum, count) => sum + count, 0);
    const redaction = this.#redaction;
    return markdownLines([
      `**${progress.status}**${progress.errorCode ? ` (${progress.errorCode})` : ''}: ${this.#doing()}`,
      progress.sessionId ? `Session: ${progress.sessionId}` : '',
      this.done ? '' : `Deadline: ${progress.deadline}`,
      !this.done && this.#wakeAt
        ? `Wakes: ${new Date(this.#wakeAt.atMs).toISOString()} (${this.#wakeAt.why})`
        : '',
      redaction === undefined
        ? ''
        : ('dueAt' in redaction
            ? `Redaction due: ${redaction.dueAt}`
            : 'afterDelivery' in redaction
              ? 'Redaction due: once the results are delivered'
              : 'Redaction: never (kept by request)') +
          (redaction.workflowId ? `, by ${redaction.workflowId}` : ''),
      !this.done && this.#refreshRefusals >= MAX_REFRESH_REFUSALS
        ? `Step refreshes: stopped, refused ${this.#refreshRefusals} times since one succeeded (a refresh by the caller starts them again)`
        : '',
      `API calls: ${calls}; updated ${progress.updatedAt}`,
    ]);
  }

  #doing(): string {
    // Refused before anything ran (its input): the run fails, nothing to end or redact.
    if (this.#refusedWhy !== undefined)
      return `refused: ${this.#refusedWhy}; nothing was created, the run fails`;
    if (this.#closed) return 'ended';
    if (this.#closing) return 'closing: ending the session if live, scheduling the redaction';
    if (this.done) return 'ended; fetching what it needs before closing';
    if (this.#progress.status === 'starting') return 'creating the session';
    if (this.#cancelRequested !== undefined) return 'cancelling at the service';
    if (this.#redirectPending) return 'the user came back: checking the session';
    const method = this.#progress.collectionMethod;
    return method === 'SubmitNativeChallengeResponse'
      ? 'waiting for the native challenge response'
      : `waiting for the user (${method ?? 'step'}); polling the session (the pending pollSession makes the polls)`;
  }

  /**
   * Whether the session should be asked to end here: once only (a cancel refused goes to the
   * redaction, not again), and not when the service said it is done.
   */
  takeCancelTurn(): boolean {
    if (this.#sessionDone || this.#cancelTried || !this.sessionId) return false;
    this.#cancelTried = true;
    return true;
  }

  /** A refresh failed: for good (automatic refreshes stop), or for a while (tried again later). */
  refreshFailed(forGood: boolean, now: number, retryInMs: number): void {
    if (forGood) this.#refreshStopped = true;
    else this.#refreshRetryAtMs = now + retryInMs;
  }

  /**
   * A refresh was refused: tried again `retryInMs` later, unless it is the
   * {@link MAX_REFRESH_REFUSALS}th refusal since a refresh last succeeded: then automatic
   * refreshes stop (`stopped`).
   */
  refreshRefused(now: number, retryInMs: number): 'tried again' | 'stopped' {
    this.#refreshRefusals += 1;
    this.#refreshRetryAtMs = now + retryInMs;
    this.#changed();
    return this.#refreshRefusals >= MAX_REFRESH_REFUSALS ? 'stopped' : 'tried again';
  }

  /** The profile's orphan sweep was asked to look. */
  orphanSweepAsked(): void {
    this.#progress.orphanSweep = true;
  }

  /** The clean-up could not close the creation: the workflow `workflowId` closes it. */
  creationHandedOff(workflowId: string): void {
    this.#progress.creationClose = workflowId;
  }

  /** The results are in: fetched, or fetched along by the read that found the success. */
  get resultsIn(): boolean {
    return this.#identity !== undefined || this.#attachments !== undefined;
  }

  /** The results were fetched (identity sealed, attachments stored). */
  resultsFetched(results: {
    identity?: Sealed | undefined;
    attachments?: AttachmentRef[] | undefined;
  }): void {
    this.#identity = results.identity;
    this.#attachments = results.attachments;
  }

  /** The state the next run starts from. */
  carry(): CarriedVerification {
    return {
      progress: this.#progress,
      sessionDone: this.#sessionDone,
      redirectPending: this.#redirectPending,
      refreshStopped: this.#refreshStopped,
      ...(this.#refreshRefusals === 0 ? {} : { refreshRefusals: this.#refreshRefusals }),
      ...(this.#lastRefreshAtMs === undefined ? {} : { lastRefreshAtMs: this.#lastRefreshAtMs }),
      ...(this.#refreshRetryAtMs === undefined ? {} : { refreshRetryAtMs: this.#refreshRetryAtMs }),
    };
  }

  get sessionId(): string | undefined {
    return this.#progress.sessionId;
  }

  get done(): boolean {
    return this.#ending !== undefined;
  }

  get deadlineMs(): number {
    return Date.parse(this.#progress.deadline);
  }

  /**
   * When the step's content is due for an automatic refresh; undefined when it is not (or the
   * service's time cannot be read). Never sooner than {@link MIN_REFRESH_GAP_MS} after the last
   * refresh, whatever the service says, and, when `gapFromLifetime` says so, never sooner than
   * half the step's lifetime after it: a service whose clock is behind ours by more than a step
   * lives answers every step due already, which would otherwise be refreshed every second.
   * `gapFromLifetime` is asked only when it would make the refresh later (a patch, in workflows).
   */
  refreshAtMs(gapFromLifetime: () => boolean = () => false): number | undefined {
    const refresh = this.#progress.nextStep?.refresh;
    const dueMs = refresh ? Date.parse(refresh.refreshAfter) : Number.NaN;
    if (this.#refreshStopped || this.#refreshRefusals >= MAX_REFRESH_REFUSALS || Number.isNaN(dueMs))
      return undefined;
    const last = this.#lastRefreshAtMs;
    const atMs = Math.max(dueMs, this.#refreshRetryAtMs ?? 0, (last ?? 0) + MIN_REFRESH_GAP_MS);
    const lifetimeMs = (refresh?.timeToLiveSeconds ?? 0) * 1000;
    if (last === undefined || !(last + lifetimeMs / 2 > atMs)) return atMs;
    return gapFromLifetime() ? last + lifetimeMs / 2 : atMs;
  }

  /** Records the created session and its first step. */
  created(sessionId: string, collectionMethod: string, step: NextStep, now: number): void {
    Object.assign(this.#progress, { sessionId, collectionMethod, nextStep: step, status: 'pending' });
    this.touch(now);
  }

  /**
   * Replaces the step after a refresh, unless the step shown expires later: the caller's refresh
   * and an automatic one may run at once and answer in either order, and the content the service
   * made last (the one it serves) expires last. `keepNewer` is asked only when it would keep the
   * step shown (a patch, in workflows).
   */
  step(step: NextStep, now: number, keepNewer: () => boolean = () => false): void {
    this.#refreshRetryAtMs = undefined;
    this.#refreshRefusals = 0;
    const shownExpiresMs = Date.parse(this.#progress.nextStep?.refresh?.expiresAt ?? '');
    const newExpiresMs = Date.parse(step.refresh?.expiresAt ?? '');
    if (!(shownExpiresMs > newExpiresMs && keepNewer())) {
      this.#progress.nextStep = step;
      this.#lastRefreshAtMs = now;
    }
    this.touch(now);
  }

  /**
   * Ends the verification from the service's state; the first ending wins. `ourCancel` is the
   * ending of a cancellation the workflow made itself (its deadline passed: `timed-out`; every
   * read said the session is unknown: `SessionNotFound`), recorded when the service says the
   * session is cancelled. Results fetched along with the state (see `ResultsAlong`) are kept when
   * its success is the verification's ending.
   */
  finish(
    state: NormalisedSessionState & { results?: FetchedResults },
    now: number,
    ourCancel?: Ending,
  ): void {
    if (!state.done) return;
    this.#sessionDone = true;
    if (ourCancel && state.status === 'cancelled')
      return this.end({ ...(state.errorCode ? { errorCode: state.errorCode } : {}), ...ourCancel }, now);
    const status: VerificationStatus =
      state.status === 'succeeded'
        ? 'succeeded'
        : state.status === 'expired'
          ? 'timed-out'
          : state.status === 'cancelled'
            ? 'cancelled'
            : 'failed';
    if (status === 'succeeded' && state.results && !this.done) {
      this.count('GetSessionResult');
      this.resultsFetched(state.results);
    }
    this.end({ status, ...(state.errorCode ? { errorCode: state.errorCode } : {}) }, now);
  }

  /** Ends the verification with an ending of the workflow's own; the first ending wins. */
  end(ending: Ending, now: number): void {
    if (this.#ending) return;
    this.#ending = ending;
    this.#progress.status = ending.status;
    if (ending.errorCode) this.#progress.errorCode = ending.errorCode;
    this.touch(now);
  }

  /**
   * The service no longer knows the session: nothing is left to end there, as far as its answers
   * tell (404s, which the interface does not define; see {@link sessionTakenForGone}).
   */
  sessionUnknown(now: number): void {
    this.#sessionDone = true;
    this.#sessionTakenForGone = true;
    this.end({ status: 'failed', errorCode: verificationErrorCodes.sessionNotFound }, now);
  }

  /** The session succeeded but its results could not be fetched: the verification fails (the first ending is replaced). */
  resultsUnavailable(now: number): void {
    const ending = { status: 'failed' as const, errorCode: verificationErrorCodes.resultsUnavailable };
    this.#ending = ending;
    Object.assign(this.#progress, ending);
    this.touch(now);
  }

  /**
   * The verification is closing: a success whose results were asked for but not fetched (a
   * Temporal cancel or a defect came between the success and the fetch, or a Temporal cancel's
   * clean-up found the user had just finished) never has them, and says so as a fetch that
   * failed would. (A defect before the success keeps its own ending: the first ending stays.)
   */
  closingWithoutFetch(resultsWanted: boolean, now: number): void {
    if (resultsWanted && this.#ending?.status === 'succeeded' && this.#identity === undefined)
      this.resultsUnavailable(now);
  }

  /** The outcome the workflow returns. */
  outcome(): SealedVerificationOutcome {
    const ending = this.#ending ?? { status: 'failed' as const };
    return {
      ...ending,
      ...(this.sessionId ? { sessionId: this.sessionId } : {}),
      ...(this.#identity ? { identity: this.#identity } : {}),
      ...(this.#attachments ? { attachments: this.#attachments } : {}),
    };
  }

  /** Counts API calls by operation. */
  count(operation: string, calls = 1): void {
    this.#progress.apiCalls[operation] = (this.#progress.apiCalls[operation] ?? 0) + calls;
    this.#changed();
  }

  touch(now: number): void {
    this.#progress.updatedAt = new Date(now).toISOString();
    this.#changed();
  }
}
