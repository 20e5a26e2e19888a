import { SELF_LIVE_MARGIN_MS, SHARE_JOIN_MS, SHARE_STALE_MS, ShareKeeper } from '../../workers/budget-share';
import { type Poller, POLLER_LIVE_MS } from '../../workers/task-queue-pollers';

/** Wall clock of the answers (ms since the epoch); the monotonic clock starts at 0. */
const WALL = 1_800_000_000_000;
const polled = (identity: string, at = WALL): Poller => ({ identity, lastAccessMs: at });
const answer = (askedAt: number, pollers: Poller[], openVerifications = 0) => ({
  askedAt,
  wallNow: WALL + askedAt,
  pollers,
  openVerifications,
});
/** The calls per second a keeper gives after it joined with `pollers`. */
function joined(keeper: ShareKeeper, pollers: (at: number) => Poller[]): number {
  keeper.heard(answer(0, pollers(0)));
  return keeper.heard(answer(SHARE_JOIN_MS, pollers(SHARE_JOIN_MS))).callsPerSecond;
}

describe('a process’s part of a budget shared by the workers of its task queue', () => {
  it('holds until Temporal lists it and the others have had time to shrink, then takes its part', () => {
    const keeper = new ShareKeeper({ callsPerSecond: 25, identity: 'me' });
    expect(keeper.heard(answer(0, [polled('a'), polled('b')], 40))).toMatchObject({ callsPerSecond: 0 });
    const all = (at: number) => [polled('a', WALL + at), polled('b', WALL + at), polled('me', WALL + at)];
    expect(keeper.heard(answer(2_000, all(2_000), 40)).callsPerSecond).toBe(0);
    expect(keeper.heard(answer(2_000 + SHARE_JOIN_MS - 1, all(2_000), 40)).callsPerSecond).toBe(0);
    // 25 over three: 8 each, and the remainder's one call to the first identity in order ('a').
    expect(keeper.heard(answer(2_000 + SHARE_JOIN_MS, all(2_000), 40))).toEqual({
      callsPerSecond: 8,
      polledSessions: 40,
      validUntil: 2_000 + SHARE_JOIN_MS + SHARE_STALE_MS,
      workers: 3,
    });
  });

  it('divides the whole rate, the remainder to the first identities, and never grows a part when a worker joins', () => {
    const parts = (rate: number, names: string[]) =>
      names.map((identity) =>
        joined(new ShareKeeper({ callsPerSecond: rate, identity }), (at) =>
          names.map((name) => polled(name, WALL + at)),
        ),
      );
    expect(parts(10, ['a', 'b', 'c', 'd'])).toEqual([3, 3, 2, 2]);
    expect(parts(7, ['a', 'b', 'c', 'd'])).toEqual([2, 2, 2, 1]);
    // More workers than calls per second: the last ones make none, and together they make 2.
    expect(parts(2, ['a', 'b', 'c', 'd'])).toEqual([1, 1, 0, 0]);
    for (const rate of [1, 2, 7, 10, 25])
      for (let count = 1; count < 8; count += 1) {
        const names = Array.from({ length: count }, (_, i) => `w${i}`);
        const before = parts(rate, names);
        const after = parts(rate, ['joiner', ...names]).slice(1);
        expect(after.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(rate);
        after.forEach((part, i) => expect(part).toBeLessThanOrEqual(before[i] as number));
      }
  });

  it('counts a worker once, on any partition, while its last poll is recent; then the others grow', () => {
    const keeper = new ShareKeeper({ callsPerSecond: 24, identity: 'me' });
    const at = SHARE_JOIN_MS;
    keeper.heard(answer(0, [polled('me')]));
    const pollers = [
      polled('me', WALL + at),
      polled('me', WALL + at - 5),
      polled('a', WALL + at),
      polled('a', WALL + at - 9),
      polled('gone', WALL + at - POLLER_LIVE_MS),
    ];
    expect(keeper.heard(answer(at, pollers)).callsPerSecond).toBe(8);
    expect(keeper.heard(answer(at + 1, pollers)).callsPerSecond).toBe(12);
  });

  it('holds once the others may have stopped counting it (its own last poll is old), and joins again', () => {
    const keeper = new ShareKeeper({ callsPerSecond: 10, identity: 'me' });
    keeper.heard(answer(0, [polled('me')]));
    const at = SHARE_JOIN_MS;
    expect(keeper.heard(answer(at, [polled('me', WALL + at), polled('a', WALL + at)])).callsPerSecond).toBe(
      5,
    );
    const old = WALL + at - (POLLER_LIVE_MS - SELF_LIVE_MARGIN_MS) - 1;
    expect(keeper.heard(answer(at, [polled('me', old), polled('a', WALL + at)])).callsPerSecond).toBe(0);
    const back = [polled('me', WALL + at + 1), polled('a', WALL + at)];
    expect(keeper.heard(answer(at + 1, back)).callsPerSecond).toBe(0);
    expect(keeper.heard(answer(at + 1 + SHARE_JOIN_MS, back)).callsPerSecond).toBe(5);
  });

  it('gives a part that holds only until SHARE_STALE_MS after its question, and joins again after being out of touch that long', () => {
    const keeper = new ShareKeeper({ callsPerSecond: 10, identity: 'me' });
    expect(joined(keeper, (at) => [polled('me', WALL + at)])).toBe(10);
    expect(keeper.heard(answer(SHARE_JOIN_MS, [polled('me', WALL)])).validUntil).toBe(
      SHARE_JOIN_MS + SHARE_STALE_MS,
    );
    keeper.unheard(SHARE_JOIN_MS + SHARE_STALE_MS - 1);
    const soon = SHARE_JOIN_MS + SHARE_STALE_MS;
    expect(keeper.heard(answer(soon, [polled('me', WALL + soon)])).callsPerSecond).toBe(10);
    keeper.unheard(soon + SHARE_STALE_MS);
    const back = soon + SHARE_STALE_MS + 500;
    expect(keeper.heard(answer(back, [polled('me', WALL + back)])).callsPerSecond).toBe(0);
    expect(keeper.heard(answer(back + SHARE_JOIN_MS, [polled('me', WALL + back)])).callsPerSecond).toBe(10);
  });

  it('plans polls over the verifications of every worker only when it is not alone', () => {
    const alone = new ShareKeeper({ callsPerSecond: 10, identity: 'me' });
    expect(alone.heard(answer(0, [polled('me')], 500)).polledSessions).toBe(0);
    const shared = new ShareKeeper({ callsPerSecond: 10, identity: 'me' });
    expect(shared.heard(answer(0, [polled('me'), polled('a')], 500)).polledSessions).toBe(500);
  });
});
