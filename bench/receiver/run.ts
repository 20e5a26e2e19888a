// bench/receiver: the receiver's hand-off of agent deliveries to Temporal (throughput, answer
// time, delay until the connection's workflow handled the event), and redirect flows whose users
// return through /return/<reference>/<token> versus the same flows learning the outcome by polling only.
import { seededRandom } from '../support/seeded-random';
import { Runtime } from '@temporalio/worker';
import { runtimeOptions } from '../../workers/logging';
import { recordSection } from '../support/record';
import { round, summarise } from '../support/stats';
import {
  type Batch,
  type DeliveryRun,
  directSend,
  type SeenDelays,
  seenDelays,
  sendBatch,
  type Send,
  viaEmulatorSend,
} from './deliveries';
import { type Polling, type RedirectRun, redirectFlows } from './redirects';
import { type BenchStack, startStack, TENANT } from './stack';

const size = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const IN_FLIGHT = size('BENCH_RECEIVER_IN_FLIGHT', 32);
const DIRECT: Batch = {
  prefix: 'direct',
  count: size('BENCH_RECEIVER_DELIVERIES', 2_000),
  connections: size('BENCH_RECEIVER_CONNECTIONS', 200),
  inFlight: IN_FLIGHT,
};
const WARMUP: Batch = {
  prefix: 'warmup',
  count: size('BENCH_RECEIVER_WARMUP', 200),
  connections: 20,
  inFlight: IN_FLIGHT,
};
// The emulator delivers one event per control call: a smaller batch, fewer in flight.
const VIA_EMULATOR: Batch = {
  prefix: 'platform',
  count: size('BENCH_RECEIVER_VIA_EMULATOR', 200),
  connections: 20,
  inFlight: 8,
};
const VERIFICATIONS = size('BENCH_RECEIVER_VERIFICATIONS', 50);
const POLL_MS = size('BENCH_RECEIVER_POLL_MS', 10_000);
const POLLING: Polling = { initialMs: POLL_MS, maxMs: POLL_MS };
const USER = {
  min: size('BENCH_RECEIVER_USER_MIN_MS', 2_000),
  max: size('BENCH_RECEIVER_USER_MAX_MS', 12_000),
};
/** The `events` query shows a connection's latest 100 events: batches must keep under that. */
const EVENTS_SHOWN = 100;

interface DeliveryRow {
  name: string;
  batch: Batch;
  run: DeliveryRun;
  delays: SeenDelays;
}

interface RedirectRow {
  name: string;
  run: RedirectRun;
}

function checkBatch(batch: Batch): void {
  if (Math.ceil(batch.count / batch.connections) > EVENTS_SHOWN)
    throw new Error(
      `${batch.prefix}: more than ${EVENTS_SHOWN} events per connection cannot all be read back`,
    );
}

async function deliveries(name: string, stack: BenchStack, batch: Batch, send: Send): Promise<DeliveryRow> {
  checkBatch(batch);
  const run = await sendBatch(batch, send);
  const delays = await seenDelays(stack.client, run.sent);
  process.stderr.write(`${name}: ${batch.count} in ${round(run.seconds)} s\n`);
  return { name, batch, run, delays };
}

async function redirects(stack: BenchStack, userMs: readonly number[]): Promise<RedirectRow[]> {
  await stack.control('PUT', '/script', { outcome: 'manual' });
  const rows: RedirectRow[] = [];
  for (const [name, withReturn] of [
    ['user returns through /return (redirectCaptured)', true],
    ['polling only (no return)', false],
  ] as const) {
    const run = await redirectFlows(stack, {
      name: withReturn ? 'return' : 'polling',
      polling: POLLING,
      userMs,
      withReturn,
      inFlight: userMs.length,
    });
    process.stderr.write(`${name}: done\n`);
    rows.push({ name, run });
  }
  return rows;
}

const cell = (n: number) => (Number.isNaN(n) ? '–' : String(round(n)));
const p = (values: readonly number[]) => {
  const { p50, p99 } = values.length ? summarise(values) : { p50: Number.NaN, p99: Number.NaN };
  return `${cell(p50)} | ${cell(p99)}`;
};

function deliveryTables(rows: readonly DeliveryRow[]): string[] {
  return [
    '| path | deliveries | connections | in flight | wall s | deliveries/s | answered 200 delivered | answer p50 ms | answer p99 ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      ({ name, batch, run }) =>
        `| ${name} | ${batch.count} | ${batch.connections} | ${batch.inFlight} | ${cell(run.seconds)} | ${cell(batch.count / run.seconds)} | ${run.delivered} | ${p(run.answerMs)} |`,
    ),
    '',
    '| path | events | events read back | sent → receiver accepted p50 ms | p99 ms | accepted → workflow saw p50 ms | p99 ms | sent → workflow saw p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.flatMap(({ name, delays }) =>
      (
        [
          ['all', delays.all],
          ['first of its connection (starts the workflow)', delays.starts],
          ['later (workflow running)', delays.later],
        ] as const
      ).map(
        ([subset, d]) =>
          `| ${name} | ${subset} | ${d.seen.length} | ${p(d.accepted)} | ${p(d.handOff)} | ${p(d.seen)} |`,
      ),
    ),
    '',
    `Events sent but not found in their workflow's \`events\`: ${rows.map((r) => `${r.name} ${r.delays.missing}`).join(', ')}.`,
  ];
}

function redirectTable(rows: readonly RedirectRow[]): string[] {
  return [
    '| variant | verifications | failures | user finished → outcome known p50 ms | p99 ms | /return answered (303) p50 ms | p99 ms | GetSession calls/verification |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      ({ name, run }) =>
        `| ${name} | ${run.outcomeMs.length} | ${run.failures} | ${p(run.outcomeMs)} | ${p(run.returnMs)} | ${cell(run.getSessionsPerVerification)} |`,
    ),
  ];
}

function markdownOf(deliveryRows: readonly DeliveryRow[], redirectRows: readonly RedirectRow[]): string {
  const [withReturn, pollingOnly] = redirectRows.map((r) => summarise(r.run.outcomeMs).p50) as [
    number,
    number,
  ];
  return [
    '## bench/receiver: agent deliveries into Temporal, and users returning from redirect flows',
    '',
    `One dev server; the emulator in its own process, started with an agent key for \`${TENANT}\` (\`--agent-key\`) so the receiver is registered as the tenant's Notification webhook; in this process one worker of all workflows (payloads encrypted), the receiver (\`startReceiver\`, spool on local disk) and the load. Deliveries: after ${WARMUP.count} warm-up deliveries, ${DIRECT.count} POSTs straight to the receiver's webhook URL (undici, ${DIRECT.inFlight} in flight) spread over ${DIRECT.connections} connections, each handed over by signal-with-start to its \`agentConnection\` workflow; then ${VIA_EMULATOR.count} events through the emulated platform (\`POST /agent-events\`: the emulator POSTs to the registered webhook; answer time is the whole control call). Each connection's \`events\` query is then read back: "accepted" is the receiver's \`receivedAt\`, "workflow saw" its \`seenAt\` (the workflow task's time), "sent" the bench's clock before the request (all on one machine, ms resolution). Redirect flows: ${VERIFICATIONS} verifications per variant at once, polling fixed at ${POLL_MS / 1000} s (\`polling: {initialMs: ${POLLING.initialMs}, maxMs: ${POLLING.maxMs}}\`), \`redirectUrl\` = the receiver's \`/return/<reference>/<token>\`, \`finalUrl\` set, emulator script \`outcome: 'manual'\`; each user finishes (control \`POST /sessions/<id>/complete\`) after a seeded random ${USER.min / 1000}–${USER.max / 1000} s, the same delays for both variants; with the return, the bench GETs that URL right after completing. Delay = completed → \`handle.result()\` resolved (results fetched). Run: \`npm run bench:receiver\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}).`,
    '',
    ...deliveryTables(deliveryRows),
    '',
    'Where "accepted → workflow saw" of the direct POSTs is far above that of the emulator path, the worker (on the same 2 cores as the dev server, the receiver and the load) is behind the intake: the figure is its backlog, and the rows above show whether the first event of a new connection (its workflow being started) waits longer than those of running workflows.',
    '',
    ...redirectTable(redirectRows),
    '',
    `User finished → outcome known, p50 polling only / with the return: **${cell(pollingOnly / withReturn)}x** (polling every ${POLL_MS / 1000} s).`,
  ].join('\n');
}

async function main(): Promise<void> {
  Runtime.install(runtimeOptions('WARN'));
  const stack = await startStack();
  const random = seededRandom(7);
  const userMs = Array.from({ length: VERIFICATIONS }, () => USER.min + random() * (USER.max - USER.min));
  const direct = directSend(stack.tokens.webhookUrl(stack.receiver.url, TENANT));
  let deliveryRows: DeliveryRow[] = [];
  let redirectRows: RedirectRow[] = [];
  await stack.worker.runUntil(async () => {
    // Workflow starts, the bundle's first activations and the HTTP connections warm up here.
    await sendBatch(WARMUP, direct);
    deliveryRows = [
      await deliveries('POST to the receiver', stack, DIRECT, direct),
      await deliveries("through the emulator's webhook", stack, VIA_EMULATOR, viaEmulatorSend(stack.control)),
    ];
    redirectRows = await redirects(stack, userMs);
  });
  await stack.stop();
  const markdown = markdownOf(deliveryRows, redirectRows);
  recordSection('receiver', markdown);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench/receiver failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
