import { errorFromResponse } from '../../api/http/error-mapping';
import { OverBudgetError, ServerError } from '../../api/http/errors';
import {
  attemptSettled,
  CLOCK_SLACK_MS,
  inWindows,
  planSweep,
} from '../../verification/activities/create-attempts';
import { type CreateAttempt } from '../../stores/session-vault';

const HOUR = 3_600_000;

const apiErrorOf = (status: number, operation: string) =>
  errorFromResponse({ operation, status, bodyText: '', contentType: undefined, retryAfter: undefined });

// A profile's create attempts during an outage of the service's creates: every verification in
// creation retries every few seconds for up to its deadline, each attempt recorded unsettled.
describe("the orphan sweep's plan", () => {
  it('plans a look over a hundred and fifty thousand unsettled attempts as one window', () => {
    const nowMs = Date.UTC(2026, 10, 28, 12);
    const attempts: CreateAttempt[] = Array.from({ length: 150_000 }, (_, i) => ({
      id: `a${i}`,
      workflowId: `idv-${i % 1_000}`,
      profileId: 'profile-1',
      startedAtMs: nowMs - HOUR + (i % 3_600) * 1_000,
      endedAtMs: nowMs - HOUR + (i % 3_600) * 1_000 + 500,
      settled: false,
    }));
    const plan = planSweep(attempts, nowMs, 24 * HOUR);
    expect(plan.windows).toHaveLength(1);
    expect(plan.windows[0]?.fromMs).toBe(nowMs - HOUR - CLOCK_SLACK_MS);
    expect(inWindows(plan.windows, nowMs - 30 * 60_000)).toBe(true);
    expect(inWindows(plan.windows, nowMs - 2 * HOUR)).toBe(false);
  });

  it('keeps windows apart that do not meet', () => {
    const attempt = (id: string, atMs: number): CreateAttempt => ({
      id,
      workflowId: 'idv-1',
      profileId: 'profile-1',
      startedAtMs: atMs,
      endedAtMs: atMs + 1_000,
      settled: false,
    });
    const nowMs = Date.UTC(2026, 10, 28, 12);
    const plan = planSweep([attempt('a', nowMs - 10 * HOUR), attempt('b', nowMs - HOUR)], nowMs, HOUR);
    expect(plan.windows).toHaveLength(2);
    expect(inWindows(plan.windows, nowMs - 5 * HOUR)).toBe(false);
  });

  it('keeps the attempts of a closed window for one listing of it whole, an hour after it closed or once nothing else is open', () => {
    const nowMs = Date.UTC(2026, 10, 28, 12);
    const attempt = (id: string, endedAtMs: number): CreateAttempt => ({
      id,
      workflowId: 'idv-1',
      profileId: 'profile-1',
      startedAtMs: endedAtMs - 1_000,
      endedAtMs,
      settled: false,
    });
    // Its window (an hour's horizon) closed ten minutes ago, apart from one still open.
    const closedLately = attempt('a', nowMs - HOUR - 10 * 60_000);
    const open = attempt('b', nowMs - 5 * 60_000);
    const waiting = planSweep([closedLately, open], nowMs, HOUR);
    expect(waiting.windows).toHaveLength(2);
    expect(waiting.done).toEqual([]);
    expect(waiting.lastListing).toBeUndefined();
    expect(waiting.open).toBe(true);
    // Alone, it is listed whole now and forgotten.
    const alone = planSweep([closedLately], nowMs, HOUR);
    expect(alone).toMatchObject({
      done: ['a'],
      open: false,
      lastListing: {
        fromMs: closedLately.startedAtMs - CLOCK_SLACK_MS,
        attempts: [{ id: 'a', closedAtMs: nowMs - 10 * 60_000 + CLOCK_SLACK_MS }],
      },
    });
    // Just under an hour after one closed, the other open still: kept.
    const closedAnHourAgo = attempt('c', nowMs - 2 * HOUR - CLOCK_SLACK_MS + 1_000);
    expect(planSweep([closedLately, closedAnHourAgo, open], nowMs, HOUR).done).toEqual([]);
    // An hour after it closed: listed whole, with any closed since, the open one kept.
    const later = planSweep([closedLately, attempt('d', nowMs - 3 * HOUR), open], nowMs, HOUR);
    expect(later.done.sort()).toEqual(['a', 'd']);
    expect(later.lastListing).toEqual({
      fromMs: nowMs - 3 * HOUR - 1_000 - CLOCK_SLACK_MS,
      attempts: [
        { id: 'a', closedAtMs: nowMs - 10 * 60_000 + CLOCK_SLACK_MS },
        { id: 'd', closedAtMs: nowMs - 2 * HOUR + CLOCK_SLACK_MS },
      ],
    });
    expect(later.open).toBe(true);
  });

  it('settles an attempt the call budget never sent, and not one the service failed', () => {
    expect(attemptSettled(new OverBudgetError({ operation: 'CreateDirectProviderSession' }))).toBe(true);
    const operation = 'CreateDirectProviderSession';
    // The refusals the interface defines settle it; the statuses it leaves open do not.
    for (const status of [400, 401, 403]) expect(attemptSettled(apiErrorOf(status, operation))).toBe(true);
    for (const status of [404, 409, 410, 422, 429, 418])
      expect(attemptSettled(apiErrorOf(status, operation))).toBe(false);
    expect(attemptSettled(new ServerError({ operation: 'CreateDirectProviderSession', status: 503 }))).toBe(
      false,
    );
  });
});
