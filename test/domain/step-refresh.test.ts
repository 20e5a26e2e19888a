import { MIN_REFRESH_GAP_MS, SessionState } from '../../verification/workflows/session-state';
import { type VerificationInput } from '../../verification/domain/verification';

const NOW = Date.parse('2026-11-28T12:00:00Z');

/** A running verification whose step lives `ttlSeconds` and was refreshed at NOW, due at `refreshAfter`. */
function refreshedAt(refreshAfter: string, ttlSeconds: number): SessionState {
  const state = new SessionState({ reference: 'r', timeout: 3_600_000 } as VerificationInput, NOW);
  const step = (at: string) => ({
    method: 'DeeplinkToMobile',
    content: 'https://example.test/step',
    refresh: {
      refreshAfter: at,
      expiresAt: new Date(NOW + ttlSeconds * 1000).toISOString(),
      timeToLiveSeconds: ttlSeconds,
    },
  });
  state.created('session-1', 'PollResult', step(refreshAfter), NOW - 60_000);
  state.step(step(refreshAfter), NOW);
  return state;
}

// The service's clock may be behind ours by more than a step lives: each refreshed step then
// says it is due already. Its refreshes must not follow one another every second.
describe('automatic step refreshes', () => {
  it('follow the service’s refreshAfter when it is ahead', () => {
    const due = new Date(NOW + 8_000).toISOString();
    expect(refreshedAt(due, 10).refreshAtMs(() => true)).toBe(NOW + 8_000);
  });

  it('come no sooner than half the step’s lifetime after the last when refreshAfter has passed', () => {
    expect(refreshedAt('2000-01-01T00:00:00Z', 60).refreshAtMs(() => true)).toBe(NOW + 30_000);
  });

  it('keep the minimum gap for a step that lives a second', () => {
    expect(refreshedAt('2000-01-01T00:00:00Z', 1).refreshAtMs(() => true)).toBe(NOW + MIN_REFRESH_GAP_MS);
  });

  it('keep their gap in the run a verification continues as new with', () => {
    const carried = refreshedAt('2000-01-01T00:00:00Z', 60).carry();
    const next = new SessionState(
      { reference: 'r', timeout: 3_600_000 } as VerificationInput,
      NOW + 10,
      carried,
    );
    expect(next.refreshAtMs(() => true)).toBe(NOW + 30_000);
  });

  it('keep the minimum gap alone in a history recorded before the lifetime counted', () => {
    expect(refreshedAt('2000-01-01T00:00:00Z', 60).refreshAtMs(() => false)).toBe(NOW + MIN_REFRESH_GAP_MS);
  });
});
