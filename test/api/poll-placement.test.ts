import {
  BUDGET_WINDOW_MS,
  CallBudget,
  MAX_PLACED_STRETCH,
  MAX_POLL_DELAY_MS,
  PLACED_LATE_MS,
} from '../../api/http/call-budget';
import { BIN_STARTS_MS, binOf, emptyCounts } from '../../common/completion-bins';
import { InspectionCurve } from '../../verification/domain/inspection-curve';
import { ruleIntervalAtAgeMs } from '../../verification/domain/polling';

/** The fixed rule of these sessions: 2 s, whatever their age. */
const ruleMs = () => 2_000;

/** A provider whose sessions complete at one rate whatever their age. */
function flatCurve(): InspectionCurve {
  const counts = emptyCounts();
  counts.events.fill(10);
  counts.exposureMs = BIN_STARTS_MS.map(() => 1_000_000);
  return InspectionCurve.from(counts) as InspectionCurve;
}

/** A provider whose sessions complete near 90 s, rarely before 30 s, a few much later. */
function peakedCurve(): InspectionCurve {
  const counts = emptyCounts();
  counts.exposureMs = BIN_STARTS_MS.map(() => 10_000_000);
  for (const [ageMs, completions] of [
    [60_000, 100],
    [90_000, 300],
    [120_000, 100],
    [600_000, 5],
  ] as const)
    counts.events[binOf(ageMs)] = completions;
  return InspectionCurve.from(counts) as InspectionCurve;
}

// Polls placed by a provider's learned curve, within what the fixed rule would spend.
describe('polls placed by a learned curve', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('gives the fixed rule’s delay when completions are as likely at every age', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    const curve = flatCurve();
    for (let i = 1; i <= 100; i += 1)
      budget.pollDelayMs(`s-${i}`, 2_000, { curve, ageMs: 5_000, floorMs: 1_000, ruleMs });
    jest.advanceTimersByTime(BUDGET_WINDOW_MS);
    // 100 sessions at 5 polls per 1.1 s (the window): 22 s each, as the rule says.
    expect(budget.pollDelayMs('s-1', 2_000, { curve, ageMs: 30_000, floorMs: 1_000, ruleMs })).toBe(22_000);
  });

  it('polls sessions near the likely completions sooner, the others later, for the same calls in all', () => {
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    const curve = peakedCurve();
    const ages = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 85_000 : 1_800_000));
    ages.forEach((ageMs, i) => budget.pollDelayMs(`s-${i}`, 2_000, { curve, ageMs, floorMs: 1_000, ruleMs }));
    jest.advanceTimersByTime(BUDGET_WINDOW_MS);
    const delays = ages.map((ageMs, i) =>
      budget.pollDelayMs(`s-${i}`, 2_000, { curve, ageMs, floorMs: 1_000, ruleMs }),
    );
    const near = delays[0] as number;
    const late = delays[1] as number;
    // Half of them near the peak take nearly all the polls: twice the rule's, the rest far fewer,
    // though never further apart than a few times the rule's delay.
    expect(near).toBeLessThan(22_000 * 0.6);
    expect(late).toBe(22_000 * MAX_PLACED_STRETCH);
    // The polls per second of all of them stay what the rule gives (100 sessions every 22 s).
    const rate = delays.reduce((total, delay) => total + 1 / delay, 0);
    expect(rate).toBeGreaterThan((100 / 22_000) * 0.8);
    expect(rate).toBeLessThan((100 / 22_000) * 1.25);
  });

  it('never places a session’s next poll further than a few times the rule’s delay, however unlikely its completion', () => {
    // A tail the curve knows from few completions: polled rarely, but never so rarely that a
    // completion there (the curve may be wrong) waits far longer than under the rule.
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    const curve = peakedCurve();
    for (let i = 0; i < 100; i += 1)
      budget.pollDelayMs(`s-${i}`, 2_000, {
        curve,
        ageMs: i === 0 ? 400_000 : 90_000,
        floorMs: 1_000,
        ruleMs,
      });
    jest.advanceTimersByTime(BUDGET_WINDOW_MS);
    const tail = budget.pollDelayMs('s-0', 2_000, { curve, ageMs: 400_000, floorMs: 1_000, ruleMs });
    expect(tail).toBeLessThanOrEqual(22_000 * MAX_PLACED_STRETCH);
    expect(tail).toBeGreaterThan(22_000);
  });

  it('weighs only the sessions whose next poll it awaits, not those polled since by another worker', () => {
    // One of two workers: sessions it polled near their peak have since been polled (or found
    // done) by the other; counting them on would make its own late sessions look unlikely.
    const budget = new CallBudget({ callsPerSecond: 10, pollShare: 0.5 });
    budget.share({ callsPerSecond: 5, polledSessions: 100, workers: 2 });
    const curve = peakedCurve();
    const near = Array.from({ length: 100 }, (_, i) =>
      budget.pollDelayMs(`near-${i}`, 2_000, { curve, ageMs: 85_000, floorMs: 1_000, ruleMs }),
    );
    jest.advanceTimersByTime(Math.max(...near) + PLACED_LATE_MS + BUDGET_WINDOW_MS);
    for (let i = 0; i < 100; i += 1)
      budget.pollDelayMs(`late-${i}`, 2_000, { curve, ageMs: 1_800_000, floorMs: 1_000, ruleMs });
    jest.advanceTimersByTime(BUDGET_WINDOW_MS);
    const late = budget.pollDelayMs('late-0', 2_000, { curve, ageMs: 1_801_100, floorMs: 1_000, ruleMs });
    // Alike, the late sessions share the rule's polls evenly: 100 sessions every 22 s.
    expect(late).toBeGreaterThan(22_000 * 0.8);
    expect(late).toBeLessThan(22_000 * 1.25);
  });

  it('places a lone session’s next poll by its own rule, not ten minutes on, before the sums include it', () => {
    const budget = new CallBudget({ callsPerSecond: 25 });
    const curve = peakedCurve();
    const first = budget.pollDelayMs('alone', 1_000, { curve, ageMs: 50, floorMs: 1_000, ruleMs });
    jest.advanceTimersByTime(first);
    const second = budget.pollDelayMs('alone', 1_500, { curve, ageMs: 50 + first, floorMs: 1_000, ruleMs });
    expect(second).toBeLessThan(60_000);
  });

  it('keeps each session’s own rule where the curve is flat, whatever the others ask for', () => {
    const budget = new CallBudget({ callsPerSecond: 100 });
    const curve = flatCurve();
    const own = { fast: () => 2_000, slow: () => 120_000 };
    for (const round of [1, 2])
      for (const [id, rule] of Object.entries(own)) {
        const delay = budget.pollDelayMs(id, rule(), { curve, ageMs: 5_000, floorMs: 1_000, ruleMs: rule });
        if (round === 2) expect(delay).toBe(rule());
        jest.advanceTimersByTime(BUDGET_WINDOW_MS);
      }
  });

  it('keeps each delay between the floor and ten minutes', () => {
    const budget = new CallBudget({ callsPerSecond: 100 });
    const curve = peakedCurve();
    // Alone, near its peak: the rule's own 2 s is all it would spend, the curve asks for less.
    expect(
      budget.pollDelayMs('near', 2_000, { curve, ageMs: 90_000, floorMs: 1_500, ruleMs }),
    ).toBeGreaterThanOrEqual(1_500);
    // A rule faster than the floor (its longest interval under its first): the floor still holds,
    // where the curve says a completion is unlikely and three rule delays are under it.
    expect(
      budget.pollDelayMs('tail', 200, { curve, ageMs: 400_000, floorMs: 1_000, ruleMs: () => 200 }),
    ).toBeGreaterThanOrEqual(1_000);
    const crowded = new CallBudget({ callsPerSecond: 1, pollShare: 0.5 });
    for (let i = 0; i < 1_000; i += 1)
      crowded.pollDelayMs(`s-${i}`, 1_000, { curve, ageMs: 90_000, floorMs: 1_000, ruleMs });
    jest.advanceTimersByTime(BUDGET_WINDOW_MS);
    expect(crowded.pollDelayMs('late', 1_000, { curve, ageMs: 7_200_000, floorMs: 1_000, ruleMs })).toBe(
      MAX_POLL_DELAY_MS,
    );
  });

  it('knows the fixed rule’s interval at an age: as many polls as fit, each half as long again', () => {
    const plan = { initialMs: 1_000, maxMs: 10_000 };
    expect(ruleIntervalAtAgeMs(plan, 0)).toBe(1_000);
    expect(ruleIntervalAtAgeMs(plan, 999)).toBe(1_000);
    expect(ruleIntervalAtAgeMs(plan, 1_000)).toBe(1_500);
    expect(ruleIntervalAtAgeMs(plan, 2_500)).toBe(2_250);
    expect(ruleIntervalAtAgeMs(plan, 3_600_000)).toBe(10_000);
  });
});
