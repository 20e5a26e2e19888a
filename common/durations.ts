/** The latest time a JavaScript date holds (ms since the epoch): later ones are not dates. */
export const MAX_DATE_MS = 8.64e15;

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

const ISO_8601 =
  /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/**
 * Milliseconds of a duration, or undefined when it is not one: a number of milliseconds, text
 * with a unit (`30m`, `1h`, `7d`, `90 seconds`) or ISO 8601 (`PT30M`, `P7D`). Deterministic and
 * pure. A bare number in text is read as milliseconds here (histories hold such inputs); callers
 * refuse it first with {@link durationProblem}.
 */
export function parseDuration(value: DurationInput): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const iso = ISO_8601.exec(value.trim());
  if (iso && value.trim().length > 1 && !/T$/i.test(value.trim())) {
    const [weeks, days, hours, minutes, seconds] = iso.slice(1).map((part) => Number(part ?? 0)) as [
      number,
      number,
      number,
      number,
      number,
    ];
    return Math.round((((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1_000);
  }
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

/**
 * Why text a person wrote is not a duration to accept, or undefined: a bare number (`5`: seconds
 * or milliseconds?) gets a hint, a negative one is refused. Zero without a unit is clear and
 * passes; the bounds of each setting are checked by its schema.
 */
export function durationProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^-/.test(text)) return `must not be negative (got '${value}')`;
  if (/^\d+(?:\.\d+)?$/.test(text) && Number(text) !== 0)
    return `needs a unit: '${text}' could be seconds or milliseconds; write ${text}s or ${text}m (units: ms, s, m, h, d; or ISO 8601 such as PT${text}S)`;
  return undefined;
}
