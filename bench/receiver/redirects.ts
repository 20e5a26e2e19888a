// Redirect flows: verifications whose users the bench finishes itself (emulator script
// `outcome: 'manual'`), with or without the user's return through the receiver's /return route.
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { type VerificationRequest } from '../../verification/domain/verification';
import { inLanes } from './deliveries';
import { type BenchStack } from './stack';

/** The flows' fixed polling: the return is what ends them early. */
export interface Polling {
  initialMs: number;
  maxMs: number;
}

/** One variant's figures. */
export interface RedirectRun {
  /** User finished (session completed at the service) → `handle.result()` resolved, ms. */
  outcomeMs: number[];
  /** GET /return answered (303 to the final URL), ms; empty without the return. */
  returnMs: number[];
  /** Verifications that did not succeed, or whose return was not a 303 (should be 0). */
  failures: number;
  /** GetSession calls at the service per verification. */
  getSessionsPerVerification: number;
}

const FINAL_URL = 'https://shop.example/done';

function requestFor(stack: BenchStack, reference: string, polling: Polling): VerificationRequest {
  return {
    reference,
    verificationProfileId: stack.profileId,
    provider: 'trinsic-test-database-lookup',
    capabilities: ['PollResult'],
    providerInput: {
      'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode: '123456' },
    },
    redirectUrl: stack.tokens.returnUrl(stack.receiver.url, reference),
    finalUrl: FINAL_URL,
    polling,
    redactAfter: 'never',
  };
}

/** The user's browser coming back: answer time, or undefined when it was not the 303 expected. */
async function returnOf(url: string): Promise<number | undefined> {
  const t0 = performance.now();
  const response = await request(url);
  await response.body.dump();
  const ok = response.statusCode === 303 && response.headers.location === FINAL_URL;
  return ok ? performance.now() - t0 : undefined;
}

/** One verification: start, the user finishes after `userMs`, optionally returns, outcome awaited. */
async function oneFlow(
  stack: BenchStack,
  reference: string,
  options: { polling: Polling; userMs: number; withReturn: boolean },
): Promise<{ outcomeMs: number; returnMs?: number; ok: boolean }> {
  const draft = requestFor(stack, reference, options.polling);
  const { handle, nextStep } = await stack.idv.startVerification(draft);
  // Awaited from the start, so the moment it resolves is not delayed by the bench's own steps.
  const outcome = handle.result().then((result) => ({ status: result.status, at: performance.now() }));
  outcome.catch(() => undefined);
  await sleep(options.userMs);
  await stack.control('POST', `/sessions/${nextStep.sessionId}/complete`);
  const finishedAt = performance.now();
  const returnMs = options.withReturn ? await returnOf(draft.redirectUrl as string) : undefined;
  const { status, at } = await outcome;
  const ok = status === 'succeeded' && (!options.withReturn || returnMs !== undefined);
  return { outcomeMs: at - finishedAt, ok, ...(returnMs === undefined ? {} : { returnMs }) };
}

async function getSessionCalls(stack: BenchStack): Promise<number> {
  const counters = (await stack.control('GET', '/counters')).byOperation as Record<string, number>;
  return counters.GetSession ?? 0;
}

/** Runs one verification per entry of `userMs` (all at once), each user finishing after its delay. */
export async function redirectFlows(
  stack: BenchStack,
  options: {
    name: string;
    polling: Polling;
    userMs: readonly number[];
    withReturn: boolean;
    inFlight: number;
  },
): Promise<RedirectRun> {
  await stack.control('DELETE', '/counters');
  const run: RedirectRun = { outcomeMs: [], returnMs: [], failures: 0, getSessionsPerVerification: 0 };
  const stamp = Date.now();
  await inLanes(options.userMs.length, options.inFlight, async (i) => {
    const flow = await oneFlow(stack, `bench-${options.name}-${stamp}-${i}`, {
      polling: options.polling,
      userMs: options.userMs[i] ?? 0,
      withReturn: options.withReturn,
    });
    run.outcomeMs.push(flow.outcomeMs);
    if (flow.returnMs !== undefined) run.returnMs.push(flow.returnMs);
    if (!flow.ok) run.failures += 1;
  });
  run.getSessionsPerVerification = (await getSessionCalls(stack)) / options.userMs.length;
  return run;
}
