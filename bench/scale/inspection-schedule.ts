// The best fixed polling schedule for a known distribution: the classic optimal inspection
// problem (Barlow, Hunter and Proschan), least mean delay between a completion and the poll that
// sees it for a given mean number of polls, solved exactly on a time grid by dynamic
// programming over a sample of the distribution, and scored on the population measured (another
// sample of it).

/** A schedule and what it costs the population. */
export interface FixedSchedule {
  /** Poll times (ms after the start), the same for every user. */
  pollsAtMs: number[];
  /** Polls per user until one sees the completion. */
  pollsPerUser: number;
  /** Completion → the poll that sees it, per user (in the order given). */
  delaysMs: number[];
  meanDelayMs: number;
}

/** The schedule that minimises total delay + `price` × total polls, polls on multiples of `stepMs`. */
function cheapest(sorted: readonly number[], stepMs: number, price: number): number[] {
  const n = sorted.length;
  const m = Math.ceil((sorted[n - 1] as number) / stepMs);
  // Users completed by each grid point, and the sum of their times.
  const done = new Float64Array(m + 1);
  const sums = new Float64Array(m + 1);
  for (let i = 0, j = 0, total = 0; i <= m; i += 1) {
    while (j < n && (sorted[j] as number) <= i * stepMs) total += sorted[j++] as number;
    done[i] = j;
    sums[i] = total;
  }
  // cost[a]: the least cost from a poll at grid point a (everyone done by then is seen) on.
  const cost = new Float64Array(m + 1);
  const next = new Int32Array(m + 1).fill(-1);
  for (let a = m - 1; a >= 0; a -= 1) {
    const pollPrice = price * (n - (done[a] as number));
    let best = Number.POSITIVE_INFINITY;
    for (let b = a + 1; b <= m; b += 1) {
      const seen = (done[b] as number) - (done[a] as number);
      const value =
        b * stepMs * seen - ((sums[b] as number) - (sums[a] as number)) + pollPrice + (cost[b] as number);
      if (value < best) {
        best = value;
        next[a] = b;
      }
    }
    cost[a] = best;
  }
  const polls: number[] = [];
  for (let at = next[0] as number; at > 0; at = next[at] as number) polls.push(at * stepMs);
  return polls;
}

/** What `pollsAtMs` costs users who complete at `timesMs`. */
export function scheduleCost(timesMs: readonly number[], pollsAtMs: readonly number[]): FixedSchedule {
  let polls = 0;
  const delaysMs = timesMs.map((time) => {
    let k = 0;
    while (k < pollsAtMs.length - 1 && (pollsAtMs[k] as number) < time) k += 1;
    polls += k + 1;
    return Math.max(0, (pollsAtMs[k] as number) - time);
  });
  return {
    pollsAtMs: [...pollsAtMs],
    pollsPerUser: polls / timesMs.length,
    delaysMs,
    meanDelayMs: delaysMs.reduce((total, delay) => total + delay, 0) / timesMs.length,
  };
}

/**
 * The best fixed schedule for the distribution `fitMs` is a sample of, scored on users completing
 * at `scoreMs` with `pollsPerUser` polls each on average: the price of a poll is searched for
 * (bisection on its logarithm) until the optima's polls bracket the target; the mean delay at the
 * target is interpolated between the two bracketing optima (alternating them reaches any point
 * between them). `schedule` is the one of the two with no more polls than the target.
 */
export function bestFixedSchedule(options: {
  fitMs: readonly number[];
  scoreMs: readonly number[];
  pollsPerUser: number;
  stepMs?: number;
}): { meanDelayMs: number; schedule: FixedSchedule } {
  const { fitMs, scoreMs, pollsPerUser, stepMs = 500 } = options;
  if (fitMs.length === 0 || scoreMs.length === 0) throw new RangeError('no completion times to schedule for');
  const sorted = [...fitMs].sort((a, b) => a - b);
  const at = (price: number) => scheduleCost(scoreMs, cheapest(sorted, stepMs, price));
  let cheap = 1e-3; // polls nearly free: many polls
  let dear = 1e9; // polls dear: few
  let many = at(cheap);
  let few = at(dear);
  for (let i = 0; i < 60 && many.pollsPerUser > pollsPerUser && few.pollsPerUser < pollsPerUser; i += 1) {
    const price = Math.sqrt(cheap * dear);
    const result = at(price);
    if (result.pollsPerUser >= pollsPerUser) {
      cheap = price;
      many = result;
    } else {
      dear = price;
      few = result;
    }
    if (many.pollsPerUser - few.pollsPerUser < 0.01) break;
  }
  if (few.pollsPerUser >= pollsPerUser) return { meanDelayMs: few.meanDelayMs, schedule: few };
  if (many.pollsPerUser <= pollsPerUser) return { meanDelayMs: many.meanDelayMs, schedule: many };
  const share = (pollsPerUser - few.pollsPerUser) / (many.pollsPerUser - few.pollsPerUser);
  return { meanDelayMs: few.meanDelayMs + share * (many.meanDelayMs - few.meanDelayMs), schedule: few };
}
