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
