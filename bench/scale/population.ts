// A user population: log-normal completion times (median 90 s, long tail), a mix of redirect
// flows (the user returns through the receiver) and poll-only flows.
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { type IdvClient } from '../../verification/client/idv-client';
import { testProviderRequest } from '../../test/harness/requests';
import { inLanes } from '../receiver/deliveries';
import { seededRandom } from '../support/seeded-random';
import { type BenchEmulator } from './stack';

/** Log-normal user times: `medianMs`, spread `sigma`, none longer than `maxMs`. */
export function logNormalTimes(
  count: number,
  options: { seed: number; medianMs: number; sigma: number; maxMs: number },
) {
  const random = seededRandom(options.seed);
  const times: number[] = [];
  while (times.length < count) {
    // Box–Muller: a standard normal from two uniforms.
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const ms = Math.round(options.medianMs * Math.exp(options.sigma * z));
    if (ms <= options.maxMs) times.push(ms);
  }
  return times;
}

export type FlowKind = 'redirect' | 'poll-only';

/** One verification of the population. */
export interface Flow {
  kind: FlowKind;
  reference: string;
  sessionId: string;
  /** When its user finished, ms after the verification started. */
  userMs: number;
  /** When its user finished (epoch ms). */
  finishedAt?: number;
  /** User finished (session completed at the service) → the workflow closed with the outcome (server's close time), ms. */
  delayMs: number;
  ok: boolean;
}

export interface PopulationRun {
  flows: Flow[];
  wallSeconds: number;
  /** When the last verification had started (epoch ms). */
  startsEndedAt: number;
  /** Requests the emulator received, by operation. */
  calls: Record<string, number>;
  /** Most requests the emulator received in one wall-clock second. */
  busiestSecond: number;
  /** The first errors of failed flows (at most three). */
  errors: string[];
  /** Requests the emulator received, by session and operation. */
  bySession: Record<string, Record<string, number>>;
  /** When a GetSession first found each session done (epoch ms). */
  seenDone: Record<string, number>;
}

const FINAL_URL = 'https://shop.example/done';

/**
 * Starts one verification per user time (at most `startLanes` starts at a time), each user
 * finishing after their time; a redirect flow's user then comes back through the receiver.
 */
export async function runPopulation(options: {
  name: string;
  idv: IdvClient;
  emulator: BenchEmulator;
  /** A verification's return URL at the receiver. */
  returnUrl: (reference: string) => string;
  userMs: readonly number[];
  redirectEvery: number;
  polling?: { initialMs: number; maxMs: number };
  startLanes?: number;
  /** Starts spread evenly over this long (users arriving one after another); 0: all at once. */
  arrivalMs?: number;
}): Promise<PopulationRun> {
  const { emulator } = options;
  await emulator.control('PUT', '/script', { outcome: 'manual' });
  await emulator.control('DELETE', '/counters');
  const stamp = Date.now();
  const flows: Flow[] = [];
  const running: Array<Promise<void>> = [];
  // A flow that fails is counted as failed (and its error kept), never left to reject on its own.
  const errors: string[] = [];
  const spacingMs = (options.arrivalMs ?? 0) / options.userMs.length;
  await inLanes(options.userMs.length, options.startLanes ?? 50, async (i) => {
    if (spacingMs > 0) await sleep(Math.max(0, stamp + i * spacingMs - Date.now()));
    const kind: FlowKind = i % options.redirectEvery === 0 ? 'redirect' : 'poll-only';
    const reference = `bench-${options.name}-${stamp}-${i}`;
    const returnUrl = options.returnUrl(reference);
    const draft = testProviderRequest(reference, emulator.info.verificationProfiles[0]?.id ?? '', {
      timeout: '1h',
      redactAfter: 'never',
      ...(kind === 'redirect' ? { redirectUrl: returnUrl, finalUrl: FINAL_URL } : {}),
      ...(options.polling ? { polling: options.polling } : {}),
    });
    const failed = (sessionId: string, error: unknown) => {
      flows.push({
        kind,
        reference,
        sessionId,
        userMs: options.userMs[i] ?? 0,
        delayMs: Number.NaN,
        ok: false,
      });
      if (errors.length < 3)
        errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    };
    let started: Awaited<ReturnType<IdvClient['startVerification']>>;
    try {
      started = await options.idv.startVerification(draft);
    } catch (error) {
      return failed('', error);
    }
    const { handle, nextStep } = started;
    running.push(
      (async () => {
        await sleep(options.userMs[i] ?? 0);
        await emulator.control('POST', `/sessions/${nextStep.sessionId}/complete`);
        const finishedAt = Date.now();
        let returned = true;
        if (kind === 'redirect') {
          const response = await request(returnUrl);
          await response.body.dump();
          returned = response.statusCode === 303;
        }
        const { status } = await handle.result();
        // The server's close time, not when result() resolved here: this process's many waiting
        // calls share one connection and would add their own queueing to the figure.
        const { closeTime } = await handle.workflow.describe();
        const delayMs = (closeTime?.getTime() ?? Number.NaN) - finishedAt;
        flows.push({
          kind,
          reference,
          sessionId: nextStep.sessionId,
          userMs: options.userMs[i] ?? 0,
          finishedAt,
          delayMs,
          ok: returned && status === 'succeeded',
        });
      })().catch((error: unknown) => failed(nextStep.sessionId, error)),
    );
  });
  const startsEndedAt = Date.now();
  await Promise.all(running);
  const wallSeconds = (Date.now() - stamp) / 1000;
  const counters = await emulator.control('GET', '/counters');
  return {
    flows,
    wallSeconds,
    startsEndedAt,
    calls: counters.byOperation as Record<string, number>,
    busiestSecond: Number(counters.busiestSecond),
    bySession: (counters.bySession ?? {}) as Record<string, Record<string, number>>,
    seenDone: (counters.seenDone ?? {}) as Record<string, number>,
    errors,
  };
}

/** For each poll-only user of a run: the user finished → the first GetSession that found it done, ms. */
export function foundDelays(run: PopulationRun): number[] {
  return run.flows
    .filter((flow) => flow.kind === 'poll-only' && flow.ok)
    .map((flow) => (run.seenDone[flow.sessionId] ?? Number.NaN) - (flow.finishedAt ?? Number.NaN))
    .filter((delay) => Number.isFinite(delay));
}
