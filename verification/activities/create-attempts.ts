import { ForbiddenError, OverBudgetError, UnauthorizedError, ValidationError } from '../../api/http/errors';
import { type CreateAttempt } from '../../stores/session-vault';

/**
 * Slack for the two clocks that meet here: the service stamps sessions in whole seconds on its
 * own clock, and each worker records its attempts on its own.
 */
export const CLOCK_SLACK_MS = 10_000;

/**
 * The longest a create attempt can be under way: the activity's bound with room to spare. An
 * attempt recorded longer ago and never ended belongs to a worker that died.
 */
export const ATTEMPT_BOUND_MS = 5 * 60_000;

/**
 * How far before what an earlier look covered the next one lists again: an attempt recorded by
 * a worker whose clock is behind may start before it.
 */
export const RELOOK_MS = 60_000;

/**
 * True when a create's failure is a definitive answer: the service created nothing unclaimed (a
 * refusal the interface defines, 400 for the request or 401/403 for the credentials, or never
 * sent: refused before sending, or no turn under the call budget). Any other answer (a 404, 409
 * or 429 the interface leaves open, a gateway's, a timeout) does not prove the service did not
 * carry the create out: its attempt is swept like a lost answer. A success answer that could not
 * be read (malformed, too large) did create a session.
 */
export function attemptSettled(error: unknown): boolean {
  return (
    (error instanceof ValidationError && (error.status === 400 || !error.sent)) ||
    error instanceof OverBudgetError ||
    error instanceof UnauthorizedError ||
    error instanceof ForbiddenError
  );
}

/** The attempt was answered and has ended: its session, if any, is claimed; nothing more can come of it. */
export function answered(attempt: CreateAttempt): boolean {
  return attempt.settled && attempt.endedAtMs !== undefined;
}

/**
 * True when a verification's attempts may have left an orphan: one not answered (lost, timed
 * out, failed, cancelled, still under way or crashed: the service may carry it out yet), or one
 * whose session is not the verification's kept one (a claim marked it an orphan).
 */
export function mayHaveOrphans(
  attempts: readonly CreateAttempt[],
  keptSessionId: string | undefined,
): boolean {
  return attempts.some(
    (attempt) =>
      !answered(attempt) || (attempt.sessionId !== undefined && attempt.sessionId !== keptSessionId),
  );
}

/**
 * How long after an unsettled attempt's window has closed it waits for the listing that covers
 * its window whole once more, before it is forgotten: a service may list a session later than a
 * look's relisting reaches ({@link RELOOK_MS}), dated when its create arrived and listed once
 * carried out. Windows closing within this share one such listing (it pages through every session
 * of the profile created since the earliest of them), so a day of lost answers costs at most
 * one an hour.
 */
export const LAST_LISTING_AFTER_MS = 3_600_000;

/** A time range (epoch ms, inclusive) in which an unsettled attempt's session may have been created. */
export interface CreateWindow {
  fromMs: number;
  toMs: number;
}

/** What one look at a profile may sweep, from its create attempts (pure). */
export interface SweepPlan {
  /** Sessions created up to this time can be judged now: no attempt under way can still claim them. */
  coverToMs: number;
  /**
   * Where sessions of unsettled attempts may be (each up to `horizonMs` after its attempt ended),
   * those that meet merged, earliest first: an outage of the service's creates leaves as many
   * attempts as retries, and their windows are nearly one.
   */
  windows: CreateWindow[];
  /**
   * A later look is needed: a window reaches past `coverToMs`, or an attempt is under way (its
   * verification may have closed already: if it ends unsettled, or claims after the close,
   * nobody else asks for a sweep).
   */
  open: boolean;
  /** Attempts nothing can come of any more once this look has covered `coverToMs`. */
  done: string[];
  /**
   * The closed windows listed whole before their unsettled attempts (among `done`) are
   * forgotten: from the earliest start of them; each attempt with the time its window closed.
   * Undefined when none is due now.
   */
  lastListing?: { fromMs: number; attempts: Array<{ id: string; closedAtMs: number }> };
}

/**
 * Plans a look at `nowMs`: an attempt under way (not ended, younger than its bound) may still
 * claim the session it creates, so sessions created from its start on wait for a later look;
 * an attempt that ended unsettled (or died) may have a session land at any time up to
 * `horizonMs` after it ended.
 */
export function planSweep(attempts: readonly CreateAttempt[], nowMs: number, horizonMs: number): SweepPlan {
  const underWay = (attempt: CreateAttempt) =>
    attempt.endedAtMs === undefined && nowMs - attempt.startedAtMs < ATTEMPT_BOUND_MS;
  const coverToMs =
    attempts.filter(underWay).reduce((earliest, attempt) => Math.min(earliest, attempt.startedAtMs), nowMs) -
    CLOCK_SLACK_MS;
  const unsettled = attempts.filter((attempt) => !attempt.settled && !underWay(attempt));
  const windowOf = (attempt: CreateAttempt): CreateWindow => ({
    fromMs: attempt.startedAtMs - CLOCK_SLACK_MS,
    toMs: (attempt.endedAtMs ?? attempt.startedAtMs + ATTEMPT_BOUND_MS) + horizonMs + CLOCK_SLACK_MS,
  });
  const windows = merged(unsettled.map(windowOf));
  const closed = unsettled.filter((attempt) => windowOf(attempt).toMs <= coverToMs);
  const stillOpen = windows.some((window) => window.toMs > coverToMs) || attempts.some(underWay);
  // Listed whole once the first closed an hour ago, or when nothing else keeps the sweep looking.
  const lastListing =
    closed.length > 0 &&
    (!stillOpen || closed.some((attempt) => coverToMs - windowOf(attempt).toMs >= LAST_LISTING_AFTER_MS));
  const done = [...(lastListing ? closed : []), ...attempts.filter(answered)].map((attempt) => attempt.id);
  const open = stillOpen || (closed.length > 0 && !lastListing);
  return {
    coverToMs,
    windows,
    open,
    done,
    ...(lastListing
      ? {
          lastListing: {
            fromMs: closed.reduce(
              (earliest, attempt) => Math.min(earliest, windowOf(attempt).fromMs),
              Number.POSITIVE_INFINITY,
            ),
            attempts: closed.map((attempt) => ({ id: attempt.id, closedAtMs: windowOf(attempt).toMs })),
          },
        }
      : {}),
  };
}

/** Windows that overlap or touch as one, earliest first. */
function merged(windows: CreateWindow[]): CreateWindow[] {
  const sorted = windows.sort((a, b) => a.fromMs - b.fromMs);
  const result: CreateWindow[] = [];
  for (const window of sorted) {
    const last = result[result.length - 1];
    if (last && window.fromMs <= last.toMs) last.toMs = Math.max(last.toMs, window.toMs);
    else result.push({ ...window });
  }
  return result;
}

/**
 * True when a session created at `fromMs` (or at some time up to `toMs`: a session listed
 * undated, between its neighbours' dates) may lie in one of the windows.
 */
export function inWindows(windows: readonly CreateWindow[], fromMs: number, toMs = fromMs): boolean {
  return fromMs <= toMs && windows.some((window) => window.fromMs <= toMs && window.toMs >= fromMs);
}
