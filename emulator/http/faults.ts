import { SeededRandom } from '../rng';

/**
 * The longest delay a fault holds a request (`latencyMs`, `slowBodyMs`, `lateMs`): Node's longest
 * timer, 2^31 - 1 ms (about 24.8 days); a longer one would fire at once.
 */
export const MAX_FAULT_DELAY_MS = 2_147_483_647;

/** Faults to inject into one operation (or `*`, every operation). */
export interface FaultSpec {
  /** Delay before answering. */
  latencyMs?: number;
  /** Share of requests answered with `errorStatus` (default 500). */
  errorRate?: number;
  errorStatus?: number;
  /** The `detail` of those error answers (a service echoing the request, say). */
  errorDetail?: string;
  /** Share of requests answered 429 with `Retry-After: retryAfterSeconds` (default 1). */
  rateLimitRate?: number;
  retryAfterSeconds?: number;
  /** Share of requests whose connection is destroyed without an answer. */
  dropRate?: number;
  /** Share of requests that are carried out but whose answer is lost (connection destroyed). */
  dropResponseRate?: number;
  /**
   * Share of requests carried out, then answered `errorStatus` all the same (a gateway that gave
   * up on the service's answer, a service answering a conflict for work it did).
   */
  errorAfterRate?: number;
  /**
   * Share of requests carried out late: `lateMs` after they arrived, whatever became of their
   * client meanwhile (a create that lands after the client's answer timeout, or after it gave
   * up), then answered if the connection is still open.
   */
  lateRate?: number;
  /** How late those requests are carried out. @default 10_000 */
  lateMs?: number;
  /**
   * The fault touches only requests that name a session which is already done (CancelSession of
   * a finished session answered 409, say); others pass untouched and count for nothing.
   */
  whenSessionDone?: boolean;
  /** The body is sent in two parts this far apart. */
  slowBodyMs?: number;
  /**
   * Deep-merged into a successful JSON answer (objects merged, anything else replaced): a
   * service answering an unexpected shape, an oversized field or a body that lies about sizes.
   */
  mergeBody?: Record<string, unknown>;
  /** The fault touches only requests that name this session; others pass and count for nothing. */
  sessionId?: string;
  /** The fault ends after this many affected requests. */
  count?: number;
  /** This many requests pass untouched before the fault begins (a failure part way through). */
  skip?: number;
  /** The fault ends this long after it was set. */
  durationMs?: number;
}

/** What to do with one request. */
export type FaultDecision =
  | { kind: 'none'; latencyMs: number; slowBodyMs: number; mergeBody?: Record<string, unknown> }
  | { kind: 'drop'; latencyMs: number }
  | { kind: 'drop-response'; latencyMs: number }
  | { kind: 'error-after'; latencyMs: number; status: number; detail?: string }
  | { kind: 'late'; latencyMs: number; lateMs: number }
  | { kind: 'error'; latencyMs: number; status: number; detail?: string }
  | { kind: 'rate-limit'; latencyMs: number; retryAfterSeconds: number };

interface ActiveFault {
  spec: FaultSpec;
  skipping: number;
  remaining: number;
  untilMs: number;
}

/** Fault injection per operation, with its own seeded source so ids stay reproducible. */
export class FaultInjector {
  readonly #faults = new Map<string, ActiveFault>();
  readonly #random: SeededRandom;

  constructor(seed: number) {
    this.#random = new SeededRandom(seed ^ 0x5eed);
  }

  /** Sets the faults of an operation (`*` for all), replacing earlier ones. */
  set(operation: string, spec: FaultSpec): void {
    this.#faults.set(operation, {
      spec,
      skipping: spec.skip ?? 0,
      remaining: spec.count ?? Number.POSITIVE_INFINITY,
      untilMs: spec.durationMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + spec.durationMs,
    });
  }

  /** Removes every fault. */
  clear(): void {
    this.#faults.clear();
  }

  /** The active faults, as plain JSON. */
  list(): Record<string, FaultSpec> {
    return Object.fromEntries([...this.#faults].map(([operation, fault]) => [operation, fault.spec]));
  }

  /**
   * Decides the fate of one request of `operation`; `sessionDone` says whether the session the
   * request names is done (undefined: it names none, or an unknown one).
   */
  decide(operation: string, sessionDone?: boolean, sessionId?: string): FaultDecision {
    const key = this.#faults.has(operation) ? operation : '*';
    const fault = this.#faults.get(key);
    if (!fault) return { kind: 'none', latencyMs: 0, slowBodyMs: 0 };
    if (fault.remaining <= 0 || Date.now() >= fault.untilMs) {
      this.#faults.delete(key);
      return { kind: 'none', latencyMs: 0, slowBodyMs: 0 };
    }
    if (fault.spec.whenSessionDone && sessionDone !== true)
      return { kind: 'none', latencyMs: 0, slowBodyMs: 0 };
    if (fault.spec.sessionId !== undefined && fault.spec.sessionId !== sessionId)
      return { kind: 'none', latencyMs: 0, slowBodyMs: 0 };
    if (fault.skipping > 0) {
      fault.skipping -= 1;
      return { kind: 'none', latencyMs: 0, slowBodyMs: 0 };
    }
    fault.remaining -= 1;
    const { spec } = fault;
    const latencyMs = spec.latencyMs ?? 0;
    const roll = this.#random.next();
    const drop = spec.dropRate ?? 0;
    const dropResponse = drop + (spec.dropResponseRate ?? 0);
    const late = dropResponse + (spec.lateRate ?? 0);
    const errorAfter = late + (spec.errorAfterRate ?? 0);
    const error = errorAfter + (spec.errorRate ?? 0);
    const limited = error + (spec.rateLimitRate ?? 0);
    if (roll < drop) return { kind: 'drop', latencyMs };
    if (roll < dropResponse) return { kind: 'drop-response', latencyMs };
    if (roll < late) return { kind: 'late', latencyMs, lateMs: spec.lateMs ?? 10_000 };
    const errorAnswer = {
      latencyMs,
      status: spec.errorStatus ?? 500,
      ...(spec.errorDetail === undefined ? {} : { detail: spec.errorDetail }),
    };
    if (roll < errorAfter) return { kind: 'error-after', ...errorAnswer };
    if (roll < error) return { kind: 'error', ...errorAnswer };
    if (roll < limited)
      return { kind: 'rate-limit', latencyMs, retryAfterSeconds: spec.retryAfterSeconds ?? 1 };
    const answer = { kind: 'none' as const, latencyMs, slowBodyMs: spec.slowBodyMs ?? 0 };
    return spec.mergeBody ? { ...answer, mergeBody: spec.mergeBody } : answer;
  }
}

/** `patch` deep-merged into `target`: plain objects are merged key by key, anything else replaced. */
export function mergeJson(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(target) || !isPlainObject(patch)) return patch;
  const merged: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) merged[key] = mergeJson(merged[key], value);
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
