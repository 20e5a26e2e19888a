import { seededRandom } from '../../bench/support/seeded-random';
import {
  BIN_STARTS_MS,
  binOf,
  COMPLETION_BINS,
  type CompletionCounts,
  emptyCounts,
} from '../../common/completion-bins';
import { CompletionTimes } from '../../verification/domain/completion-times';
import { InspectionCurve, MIN_COMPLETIONS } from '../../verification/domain/inspection-curve';

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe('completion times', () => {
  it('places ages in log-spaced bins from 1 s to 24 h', () => {
    expect(BIN_STARTS_MS).toHaveLength(COMPLETION_BINS);
    expect(binOf(0)).toBe(0);
    expect(binOf(999)).toBe(0);
    expect(binOf(1_000)).toBe(1);
    expect(binOf(90_000)).toBeGreaterThan(binOf(60_000));
    expect(binOf(7 * 86_400_000)).toBe(COMPLETION_BINS - 1);
    for (let k = 1; k < COMPLETION_BINS; k += 1) expect(binOf((BIN_STARTS_MS[k] as number) * 1.0001)).toBe(k);
  });

  it('counts the time seen running bin by bin, and a completion where it was seen', () => {
    const times = new CompletionTimes();
    times.observe('p', 500, 5_000, false);
    times.observe('p', 5_000, 8_000, true);
    const [counts] = [...times.takePending().values()] as CompletionCounts[];
    expect(sum(counts?.exposureMs ?? [])).toBeCloseTo(7_500, 6);
    expect(counts?.exposureMs[0]).toBeCloseTo(500, 6);
    expect(sum(counts?.events ?? [])).toBe(1);
    expect(counts?.events[binOf(8_000)]).toBe(1);
  });

  it('has no curve until enough completions were seen', () => {
    const times = new CompletionTimes();
    for (let i = 1; i < MIN_COMPLETIONS; i += 1) times.observe('p', 0, 10_000, true);
    expect(times.curve('p')).toBeUndefined();
    times.observe('p', 0, 10_000, true);
    expect(times.curve('p')).toBeDefined();
    expect(times.curve('another')).toBeUndefined();
  });

  it('makes the curve again after a completion at once, after running time seen 64 times', () => {
    const times = new CompletionTimes();
    for (let i = 0; i < MIN_COMPLETIONS; i += 1) times.observe('p', 0, 10_000, true);
    const first = times.curve('p');
    for (let i = 0; i < 63; i += 1) times.observe('p', 10_000, 20_000, false);
    expect(times.curve('p')).toBe(first);
    times.observe('p', 10_000, 20_000, false);
    const second = times.curve('p');
    expect(second).not.toBe(first);
    expect(second?.weight(15_000)).toBeLessThan(first?.weight(15_000) ?? 0);
    times.observe('p', 0, 15_000, true);
    expect(times.curve('p')).not.toBe(second);
    times.shared(new Map());
    expect(times.curve('p')).toBeDefined();
  });

  it('learns where completions are likely, though most sessions leave before completing', () => {
    // Log-normal times (median 90 s); two sessions in three leave unseen (a redirect, a cancel)
    // at a uniform time of their own: their running time counts, no completion.
    const random = seededRandom(7);
    const times = new CompletionTimes();
    for (let i = 0; i < 3_000; i += 1) {
      const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      const completesAt = 90_000 * Math.exp(0.84 * z);
      const leavesAt = random() < 2 / 3 ? random() * 600_000 : Number.POSITIVE_INFINITY;
      times.observe('p', 0, Math.min(completesAt, leavesAt), completesAt <= leavesAt);
    }
    const curve = times.curve('p') as InspectionCurve;
    // The log-normal's completion rate rises to a peak past its median and falls slowly after.
    expect(curve.weight(90_000)).toBeGreaterThan(2 * curve.weight(10_000));
    expect(curve.weight(150_000)).toBeGreaterThan(curve.weight(20_000));
    expect(curve.weight(3_600_000)).toBeLessThan(curve.weight(150_000));
  });

  it('inverts its measure: a flat curve steps by the step over its weight', () => {
    const counts = emptyCounts();
    counts.events.fill(10);
    counts.exposureMs = BIN_STARTS_MS.map(() => 1_000_000);
    const curve = InspectionCurve.from(counts) as InspectionCurve;
    const weight = curve.weight(5_000);
    expect(curve.weight(500_000)).toBeCloseTo(weight, 12);
    expect(curve.ageAfter(5_000, weight * 20_000)).toBeCloseTo(25_000, 3);
    expect(curve.ageAfter(0, weight * 10 * 86_400_000)).toBeCloseTo(10 * 86_400_000, -3);
  });

  it('keeps counts handed to the store until its totals come back, and takes them again if the store failed', () => {
    const times = new CompletionTimes();
    for (let i = 0; i < MIN_COMPLETIONS; i += 1) times.observe('p', 0, 10_000, true);
    const taken = times.takePending();
    expect(times.curve('p')).toBeDefined();
    times.putBack(taken);
    expect(times.takePending().get('p')?.events[binOf(10_000)]).toBe(MIN_COMPLETIONS);
    times.shared(new Map());
    expect(times.curve('p')).toBeUndefined();
    const everyone = emptyCounts();
    everyone.events[binOf(10_000)] = MIN_COMPLETIONS;
    everyone.exposureMs[0] = 1_000;
    times.shared(new Map([['p', everyone]]));
    expect(times.curve('p')).toBeDefined();
  });
});
