// bench/emulator: GetSession throughput of the emulator, load from a separate process.
import { Pool } from 'undici';
import { recordSection } from '../support/record';
import { spawnEmulator } from '../support/emulator-process';
import { round, summarise } from '../support/stats';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SESSIONS = 100;

async function main(): Promise<void> {
  const emulator = await spawnEmulator();
  const { baseUrl, apiKeys, verificationProfiles } = emulator.info;
  const headers = { authorization: `Bearer ${apiKeys[0] ?? ''}`, 'content-type': 'application/json' };
  const pool = new Pool(baseUrl, { connections: CONCURRENCY });
  const ids: string[] = [];
  for (let i = 0; i < SESSIONS; i += 1) {
    const response = await pool.request({
      method: 'POST',
      path: '/api/v1/sessions/provider/direct',
      headers,
      body: JSON.stringify({
        verificationProfileId: verificationProfiles[0]?.id,
        provider: 'trinsic-test-database-lookup',
        capabilities: ['PollResult'],
        providerInput: {
          'trinsic-test-database-lookup': { givenName: 'A', familyName: 'B', identityCode: '123456' },
        },
      }),
    });
    ids.push(((await response.body.json()) as { sessionId: string }).sessionId);
  }
  const latencies: number[] = [];
  let failures = 0;
  const deadline = Date.now() + DURATION_MS;
  const started = process.hrtime.bigint();
  async function lane(offset: number): Promise<void> {
    for (let i = offset; Date.now() < deadline; i += CONCURRENCY) {
      const t0 = process.hrtime.bigint();
      const response = await pool.request({
        method: 'GET',
        path: `/api/v1/sessions/${ids[i % ids.length] ?? ''}`,
        headers,
      });
      await response.body.dump();
      if (response.statusCode !== 200) failures += 1;
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => lane(i)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await pool.close();
  await emulator.stop();
  const { p50, p99 } = summarise(latencies);
  const rate = latencies.length / seconds;
  const markdown = [
    '## bench/emulator: GetSession throughput of the emulator',
    '',
    `The emulator (\`idv emulator\`) in its own process, ${SESSIONS} sessions, GetSession for ${DURATION_MS / 1000} s with ${CONCURRENCY} requests in flight over keep-alive connections from a second process. Run: \`npm run bench:emulator\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}).`,
    '',
    '| requests | failures | requests/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    `| ${latencies.length} | ${failures} | ${Math.round(rate)} | ${round(p50)} | ${round(p99)} |`,
    '',
    `Target: at least 3,000 GetSession requests/s: **${rate >= 3000 ? 'met' : 'not met'}**.`,
  ].join('\n');
  recordSection('emulator', markdown);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench/emulator failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
