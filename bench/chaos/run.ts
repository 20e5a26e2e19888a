// npm run chaos: the fault run at scale. Verifications run while the service answers 5xx and 429,
// drops connections, loses create answers, carries creates out late, answers 409 to cancels of
// finished sessions and 503 to every redaction while the faults last; the worker process is SIGKILLed several times and
// Temporal is restarted once on its SQLite database. Afterwards every verification must have its
// one planned outcome and nothing may be left live, readable or running. Prints the counts and
// exits 1 when any is off.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { closeCount } from '../../test/harness/close-events';
import { testProviderRequest } from '../../test/harness/requests';
import { IdvClient } from '../../verification/client/idv-client';
import {
  type VerificationHandle,
  VerificationEndedError,
} from '../../verification/client/verification-handle';
import { encryptingDataConverter } from '../../codec/data-converter';
import { newEncryptionKeyEntry, parseEncryptionKeys } from '../../codec/encryption-keys';
import { emulatorControl } from '../../emulator/control-client';
import { startEmulator } from '../../emulator/emulator';
import { openLocalStore } from '../../stores/local/local-store';
import { freePort } from '../../workers/dev/free-port';
import { type DevServer, startDevServer } from '../../workers/dev/temporal-dev-server';
import { inLanes } from '../receiver/deliveries';
import { spawnWorker, type WorkerProcess } from '../scale/stack';
import { recordSection } from '../support/record';

type Plan = 'succeeds' | 'fails' | 'cancelled' | 'times-out';
/** How long one start (or one ask for its step) may take before the run goes on without it. */
const START_WAIT_MS = 3 * 60_000;
/**
 * How long the run waits, once every outcome is in and the faults are gone, for nothing to run:
 * a redaction whose RedactSession kept failing retries at least every 10 minutes.
 */
const RUNNING_WAIT_MS = 13 * 60_000;
/** How long one cancel waits for its answer before it is sent again. */
const CANCEL_ATTEMPT_MS = 30_000;

/** `promise`, or a rejection once `ms` passed: no single call can hold the run up. */
async function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Cancels the way a business service would: a cancel that got no answer (Temporal was just
 * restarted and lost the update, the connection broke) is sent again, until the verification
 * answers or says it has ended, for at most {@link START_WAIT_MS}.
 */
async function cancelUntilSent(handle: VerificationHandle): Promise<void> {
  const giveUpAt = Date.now() + START_WAIT_MS;
  for (;;) {
    try {
      await withinDeadline(
        handle.cancel('chaos'),
        Math.max(1, Math.min(CANCEL_ATTEMPT_MS, giveUpAt - Date.now())),
      );
      return;
    } catch (error) {
      // Ended (or never started: its count shows as such): nothing to cancel.
      if (error instanceof VerificationEndedError || error instanceof WorkflowNotFoundError) return;
      if (Date.now() >= giveUpAt) {
        say(
          `cancel of ${handle.reference} not sent: ${error instanceof Error ? error.message : String(error)}`,
        );
        return;
      }
      await sleep(2_000);
    }
  }
}

/** How long the run waits for all outcomes once the last fault was injected. */
const OUTCOME_WAIT_MS = 15 * 60_000;
const VERIFICATIONS = Number(process.env.CHAOS_VERIFICATIONS ?? 300);
const expected: Record<Plan, string> = {
  succeeds: 'succeeded',
  fails: 'failed',
  cancelled: 'cancelled',
  'times-out': 'timed-out',
};
/** Half succeed; the rest fail, are cancelled or time out in equal parts. */
const planOf = (i: number): Plan =>
  i % 2 === 0
    ? 'succeeds'
    : ((['fails', 'cancelled', 'times-out'] as const)[Math.floor(i / 2) % 3] ?? 'fails');

const say = (line: string) => process.stderr.write(`chaos: ${line}\n`);

async function main(): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'idv-chaos-'));
  const port = await freePort();
  const dbFile = join(dataDir, 'temporal.db');
  let server: DevServer = await startDevServer({ port, dbFile });
  const emulator = await startEmulator({ seed: 31 });
  const control = emulatorControl(emulator.controlUrl);
  const keysEntry = newEncryptionKeyEntry('chaos');
  const encryptionKeys = parseEncryptionKeys(keysEntry);
  const store = await openLocalStore(join(dataDir, 'store'));
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, dataConverter: encryptingDataConverter(encryptionKeys) });
  const taskQueue = `chaos-${Date.now()}`;
  const idv = new IdvClient({ client, store, taskQueue });
  const workerEnv = {
    TEMPORAL_ADDRESS: server.address,
    IDV_ENCRYPTION_KEYS: keysEntry,
    IDV_API_BASE_URL: emulator.baseUrl,
    IDV_API_KEY: emulator.apiKeys[0],
    IDV_TASK_QUEUE: taskQueue,
    IDV_DATA_DIR: join(dataDir, 'store'),
    IDV_LOG_LEVEL: 'fatal',
    // Late creates land 40 s after they were sent: the sweep looks a few minutes past that.
    IDV_ORPHAN_HORIZON: '3m',
  };
  let worker: WorkerProcess = await spawnWorker(workerEnv);
  let kills = 0;
  const killWorker = async (restart: boolean) => {
    await worker.kill();
    kills += 1;
    say(`worker SIGKILLed (${kills})`);
    if (restart) worker = await spawnWorker(workerEnv);
  };
  const faults = async () => {
    await control('PUT', '/faults', {
      operation: '*',
      errorRate: 0.1,
      rateLimitRate: 0.05,
      retryAfterSeconds: 1,
      dropRate: 0.05,
      durationMs: 60_000,
    });
    // A tenth of creates are carried out 40 s late, after the client's 30 s answer timeout,
    // while their retry succeeds (or the deadline has cut the verification short).
    await control('PUT', '/faults', {
      operation: 'CreateDirectProviderSession',
      dropResponseRate: 0.3,
      lateRate: 0.1,
      lateMs: 40_000,
      errorRate: 0.1,
      durationMs: 60_000,
    });
    // "Already finished" answered 409, as the interface does not rule out.
    await control('PUT', '/faults', {
      operation: 'CancelSession',
      errorRate: 1,
      errorStatus: 409,
      whenSessionDone: true,
      durationMs: 60_000,
    });
    // A 5xx that lasts as long as the faults do: redactions wait it out, then go through.
    await control('PUT', '/faults', {
      operation: 'RedactSession',
      errorRate: 1,
      errorStatus: 503,
      durationMs: 60_000,
    });
  };
  try {
    await control('PUT', '/script', { outcome: 'manual' });
    await faults();
    // The faults last a minute each time they are set: set again while the run goes on.
    let faultsAgain = setInterval(() => void faults().catch(() => undefined), 50_000);
    say(`starting ${VERIFICATIONS} verifications`);
    const stamp = Date.now();
    const started: Array<{ plan: Plan; reference: string; sessionId?: string }> = [];
    let killedDuringStarts = false;
    await inLanes(VERIFICATIONS, 30, async (i) => {
      const plan = planOf(i);
      const reference = `chaos-${stamp}-${i}`;
      const request = testProviderRequest(reference, emulator.verificationProfiles[0]?.id ?? '', {
        timeout: plan === 'times-out' ? '90s' : '10m',
        redactAfter: 0,

        // A SIGKILLed worker's held polls come back at their attempt's bound: 2 minutes, within
        // the deadline of 10.
        polling: { initialMs: 500, maxMs: 2_000, attemptMs: 120_000 },
      });
      const start = await withinDeadline(idv.startVerification(request), START_WAIT_MS).catch(
        (error: unknown) => error,
      );
      const sessionId =
        start instanceof Error
          ? undefined
          : (start as { nextStep: { sessionId: string } }).nextStep.sessionId;
      started.push({ plan, reference, ...(sessionId ? { sessionId } : {}) });
      if (!killedDuringStarts && started.length >= VERIFICATIONS / 2) {
        killedDuringStarts = true;
        await killWorker(true);
      }
    });
    // A start that failed (the worker died under it, a create answer was lost) may still have
    // its session: ask the running verification once more, except those meant to time out.
    await inLanes(started.length, 20, async (i) => {
      const entry = started[i];
      if (!entry || entry.sessionId || entry.plan === 'times-out') return;
      const answer = await withinDeadline(
        idv.getVerification(entry.reference).nextStep(),
        START_WAIT_MS,
      ).catch(() => undefined);
      if (answer) entry.sessionId = answer.sessionId;
    });
    say(`${started.filter((s) => s.sessionId).length} started with a session`);

    await Promise.all(
      started.map(async ({ plan, sessionId }) => {
        if (!sessionId) return;
        if (plan === 'succeeds') await control('POST', `/sessions/${sessionId}/complete`);
        if (plan === 'fails') await control('POST', `/sessions/${sessionId}/fail`, { errorCode: 'Other' });
      }),
    );
    await sleep(3_000);
    await killWorker(false);
    say('Temporal stopped');
    await server.stop();
    await sleep(2_000);
    server = await startDevServer({ port, dbFile });
    say('Temporal started again on its database');
    worker = await spawnWorker(workerEnv);
    clearInterval(faultsAgain);
    await faults();
    faultsAgain = setInterval(() => void faults().catch(() => undefined), 50_000);
    await inLanes(started.length, 20, async (i) => {
      const entry = started[i];
      if (entry?.plan === 'cancelled') await cancelUntilSent(idv.getVerification(entry.reference));
    });
    await sleep(5_000);
    await killWorker(true);
    await sleep(5_000);
    await killWorker(true);

    say('waiting for every outcome');
    // Bounded: a verification stuck past its own deadline (plus the time its clean-up may take)
    // is counted as such instead of hanging the run.
    const waitUntil = Date.now() + OUTCOME_WAIT_MS;
    const outcomes = await Promise.all(
      started.map(async ({ plan: planned, reference, sessionId }) => {
        // A session nobody learned cannot be finished by its user: it times out.
        const plan: Plan = sessionId || planned === 'cancelled' ? planned : 'times-out';
        const handle = idv.getVerification(reference);
        const outcome = await Promise.race([
          handle.result().then(
            (result) => result.status as string,
            (error: unknown) => `failed workflow (${error instanceof Error ? error.name : 'error'})`,
          ),
          sleep(Math.max(0, waitUntil - Date.now())).then(() => 'no outcome in time'),
        ]);
        // A workflow that never started has no history: no close (counted off unless planned so).
        const closes = await handle.workflow.fetchHistory().then(
          ({ events }) => closeCount(events),
          () => 0,
        );
        return { plan, status: outcome, closes };
      }),
    );
    clearInterval(faultsAgain);
    await control('DELETE', '/faults');
    const running = async () =>
      (
        await client.workflow.count(
          `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running' AND WorkflowType != 'keyring'`,
        )
      ).count;
    // An orphan sweep that failed under the faults waits up to 5 minutes between attempts (its
    // retry policy): once the faults are gone, each has its next attempt within that, then lists.
    const deadline = Date.now() + RUNNING_WAIT_MS;
    while ((await running()) > 0 && Date.now() < deadline) await sleep(1_000);
    const sessions = [...emulator.store.sessions.values()];
    const counts = {
      verifications: outcomes.length,
      asPlanned: outcomes.filter((o) => o.status === expected[o.plan] && o.closes === 1).length,
      byStatus: outcomes.reduce<Record<string, number>>(
        (all, o) => ({ ...all, [o.status]: (all[o.status] ?? 0) + 1 }),
        {},
      ),
      sessions: sessions.length,
      orphans: sessions.length - started.filter((s) => s.sessionId).length,
      live: sessions.filter((session) => !session.outcome.done).length,
      holdingIdentity: sessions.filter((session) => session.identity !== undefined).length,
      running: await running(),
      workerKills: kills,
      temporalRestarts: 1,
      seconds: Math.round((Date.now() - stamp) / 1000),
    };
    process.stdout.write(`chaos: ${JSON.stringify(counts)}\n`);

    const off = [
      counts.asPlanned !== counts.verifications && 'an outcome other than planned, or more than one close',
      counts.live !== 0 && 'sessions left live at the service',
      counts.holdingIdentity !== 0 && 'sessions still holding the person’s data',
      counts.running !== 0 && 'workflows still running',
    ].filter(Boolean);
    for (const problem of off) say(`OFF: ${String(problem)}`);
    let named = 0;
    if (counts.running > 0)
      for await (const left of client.workflow.list({
        query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running' AND WorkflowType != 'keyring'`,
        pageSize: 10,
      })) {
        const { raw } = await client.workflow.getHandle(left.workflowId).describe();
        const pending = (raw.pendingActivities ?? []).map(
          (activity) => `${activity.activityType?.name ?? '?'} attempt ${activity.attempt ?? '?'}`,
        );
        say(`still running: ${left.type} ${left.workflowId} ${pending.join(', ')}`);
        named += 1;
        if (named >= 10) break;
      }
    // A run that went wrong prints its counts but does not replace the recorded figures.
    if (off.length === 0) recordSection('chaos', chaosSection(counts));
    return off.length === 0 ? 0 : 1;
  } finally {
    await worker.kill();
    await connection.close();
    await store.close();
    await emulator.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The run's counts as docs/benchmarks.md's `chaos` section. */
function chaosSection(counts: {
  verifications: number;
  asPlanned: number;
  byStatus: Record<string, number>;
  sessions: number;
  orphans: number;
  live: number;
  holdingIdentity: number;
  running: number;
  workerKills: number;
  seconds: number;
}): string {
  const statuses = Object.entries(counts.byStatus)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  return [
    '## npm run chaos: verifications under faults, killed workers and a Temporal restart',
    '',
    `Run: \`npm run chaos\` (\`CHAOS_VERIFICATIONS=${counts.verifications}\`), ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB. Half the users finish, the rest fail, are cancelled or time out (90 s) in equal parts. The emulator answers 10 % of calls 5xx and 5 % 429 and drops 5 % of connections, loses 30 % of create answers and carries out 10 % of creates 40 s late (after the client's 30 s answer timeout), answers 409 to every CancelSession of a finished session, and 503 to every RedactSession while the faults last; the worker process (\`idv worker\`, default budget) is SIGKILLed ${counts.workerKills} times (once during the starts) and Temporal's dev server is stopped and started again once on its SQLite file.`,
    '',
    '| verifications | as planned, one close each | outcomes | sessions created | of them duplicates of lost create answers | left live | holding identity | workflows still running | wall s |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${counts.verifications} | ${counts.asPlanned} | ${statuses} | ${counts.sessions} | ${counts.orphans} | ${counts.live} | ${counts.holdingIdentity} | ${counts.running} | ${counts.seconds} |`,
  ].join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `chaos failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
