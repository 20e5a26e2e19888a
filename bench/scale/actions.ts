// `npm run bench:actions`: what one verification costs in Temporal Cloud billable actions and
// history events, for the main flows (instant: the user finished before the first poll;
// poll-only: found by polls; redirect: the user comes back through the receiver), counted from
// the histories of the verification and of the redaction it starts (defaults: results `data`,
// redaction right after delivery). `BENCH_ACTIONS_EACH` verifications per flow, users taking
// `BENCH_ACTIONS_USER_MS`. Rewrites its section of docs/benchmarks.md.
import { setTimeout as sleep } from 'node:timers/promises';
import { cpus, totalmem } from 'node:os';
import { Runtime } from '@temporalio/worker';
import { request } from 'undici';
import { DEFAULT_API_RATE } from '../../api/http/call-budget';
import { runtimeOptions } from '../../workers/logging';
import { redactionWorkflowId } from '../../verification/shared/ids';
import { testProviderRequest } from '../../test/harness/requests';
import { recordSection } from '../support/record';
import { runBench } from '../support/run-bench';
import { round } from '../support/stats';
import { actionsOf } from './billable-actions';
import { startScaleStack } from './stack';

const log = (line: string) => process.stderr.write(`bench/actions: ${line}\n`);
const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const EACH = numberFrom('BENCH_ACTIONS_EACH', 20);
const USER_MS = numberFrom('BENCH_ACTIONS_USER_MS', 20_000);

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('ERROR'));
  const stack = await startScaleStack();
  try {
    const emulator = await stack.emulator(9);
    const worker = await stack.worker({ taskQueue: 'bench-actions', emulator, apiRate: DEFAULT_API_RATE });
    const idv = stack.idv('bench-actions');
    await emulator.control('PUT', '/script', { outcome: 'manual' });
    const flows = ['instant', 'poll-only', 'redirect'] as const;
    const rows: string[] = [];
    for (const flow of flows) {
      const totals: Record<string, number> = {};
      let events = 0;
      await Promise.all(
        Array.from({ length: EACH }, async (_, i) => {
          const reference = `bench-actions-${flow}-${Date.now()}-${i}`;
          const returnUrl = stack.returnUrl(reference);
          const { handle, nextStep } = await idv.startVerification(
            testProviderRequest(reference, emulator.info.verificationProfiles[0]?.id ?? '', {
              ...(flow === 'redirect'
                ? { redirectUrl: returnUrl, finalUrl: 'https://shop.example/done' }
                : {}),
            }),
          );
          if (flow !== 'instant') await sleep(USER_MS);
          await emulator.control('POST', `/sessions/${nextStep.sessionId}/complete`);
          if (flow === 'redirect') await (await request(returnUrl)).body.dump();
          const outcome = await handle.result();
          log(`${reference}: ${outcome.status}, waiting for its redaction`);
          const redaction = stack.client.workflow.getHandle(
            redactionWorkflowId({ sessionId: outcome.sessionId ?? '' }),
          );
          await redaction.result();
          for (const history of [await handle.workflow.fetchHistory(), await redaction.fetchHistory()]) {
            events += history.events?.length ?? 0;
            for (const [kind, n] of Object.entries(actionsOf(history)))
              totals[kind] = (totals[kind] ?? 0) + n;
          }
        }),
      );
      const per = (kind: string) => round((totals[kind] ?? 0) / EACH, 1);
      const all = Object.values(totals).reduce((sum, n) => sum + n, 0) / EACH;
      rows.push(
        `| ${flow} | ${per('workflow starts')} | ${per('activity attempts')} | ${per('timers')} | ${per('signals')} | ${per('updates')} | ${per('search attribute upserts')} | ${round(per('workflow tasks with markers') + per('child starts') + per('signals sent'), 1)} | **${round(all, 1)}** | ${round(events / EACH, 1)} |`,
      );
    }
    await worker.stop();
    const markdown = [
      '## npm run bench:actions: billable actions and history events per verification',
      '',
      `Run: \`npm run bench:actions\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30, 0)} GiB. ${EACH} verifications per flow on one \`idv worker\` (default budget, default polling), results \`data\`, redaction right after delivery (\`result()\` confirms it); the user finishes at once (instant) or after ${USER_MS / 1000} s. Counted from the histories of the verification and its redaction, per verification, as Temporal Cloud counts actions: each activity attempt is one (a poll's retries are its polls), the markers of one workflow task (local activities, patches) one, a patch's \`TemporalChangeVersion\` upsert none; heartbeats and queries are not in a history and are not counted.`,
      '',
      '| flow | workflow starts | activity attempts | timers | signals | updates | search attribute upserts | workflow tasks with markers, children, signals sent | actions | history events |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
    recordSection('actions', markdown);
    process.stdout.write(`${markdown}\n`);
  } finally {
    await stack.stop();
  }
}

runBench('bench/scale/actions', main);
