/** A duration as callers write it: milliseconds, or text such as `30m`, `1h`, `30 days`, `90s`. */
export type DurationInput = number | string;

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** Milliseconds of a duration, or undefined when it is not one. Deterministic and pure. */
export function parseDuration(value: DurationInput): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)?\s*$/i.exec(value);
  if (!match) return undefined;
  const unit = (match[2] ?? 'ms').toLowerCase();
  const factor = UNITS[unit];
  return factor === undefined ? undefined : Math.round(Number(match[1]) * factor);
}

/** A short human form of milliseconds, e.g. `1h`, `30m`, `45s`. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
