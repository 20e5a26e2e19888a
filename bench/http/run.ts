// bench/http: GetSession through our undici-based client versus Node's global fetch, against the
// same local server in the same run. Records requests/s and latency in docs/benchmarks.md.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createIdentityClient } from '../../api/identity/identity-client';
import { recordSection } from '../support/record';
import { round, summarise } from '../support/stats';

const SESSION_ID = '678c1ff6-2178-49e7-81d2-548afb6f85ec';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP = 2_000;

interface Result {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

async function measure(name: string, call: () => Promise<unknown>, requests: number): Promise<Result> {
  const latencies: number[] = new Array<number>(requests);
  let next = 0;
  const started = process.hrtime.bigint();
  async function lane(): Promise<void> {
    while (next < requests) {
      const index = next++;
      const t0 = process.hrtime.bigint();
      await call();
      latencies[index] = Number(process.hrtime.bigint() - t0) / 1e6;
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const { p50, p99 } = summarise(latencies);
  return { name, requestsPerSecond: requests / seconds, p50, p99 };
}

async function main(): Promise<void> {
  const server = fork(join(__dirname, 'session-server.ts'), { execArgv: ['--require', 'tsx/cjs'] });
  const [{ port }] = (await once(server, 'message')) as [{ port: number }];
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = createIdentityClient({ baseUrl, apiKey: 'bench-key', budget: 'unlimited' });
  const ours = () => client.sessions.get(SESSION_ID);
  const viaFetch = async () => {
    const response = await fetch(`${baseUrl}/api/v1/sessions/${SESSION_ID}`, {
      headers: { authorization: 'Bearer bench-key', accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`status ${response.status}`);
    return await response.json();
  };
  // Warm both paths, then alternate rounds so neither profits from running last.
  await measure('warmup', ours, WARMUP);
  await measure('warmup', viaFetch, WARMUP);
  const rounds: Result[][] = [];
  for (let round = 0; round < 3; round += 1) {
    rounds.push([
      await measure('idv client (undici)', ours, REQUESTS),
      await measure('global fetch', viaFetch, REQUESTS),
    ]);
  }
  await client.close();
  server.disconnect();

  const best = (index: number) =>
    rounds
      .map((r) => r[index] as Result)
      .sort((a, b) => b.requestsPerSecond - a.requestsPerSecond)[0] as Result;
  const [undiciResult, fetchResult] = [best(0), best(1)];
  const ratio = undiciResult.requestsPerSecond / fetchResult.requestsPerSecond;
  const rows = [undiciResult, fetchResult].map(
    (r) => `| ${r.name} | ${Math.round(r.requestsPerSecond)} | ${round(r.p50)} | ${round(r.p99)} |`,
  );
  const markdown = [
    '## bench/http: GetSession, our client vs global fetch',
    '',
    `${REQUESTS} GetSession requests per round, ${CONCURRENCY} in flight, against a local keep-alive HTTP server in its own process; best of 3 alternating rounds after ${WARMUP} warm-up requests each. Our client parses and validates the body with zod; fetch only parses JSON. Run: \`npm run bench:http\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}).`,
    '',
    '| client | requests/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Throughput ratio (ours / fetch): **${round(ratio)}x** (target: at least 2x).`,
  ].join('\n');
  recordSection('http', markdown);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench/http failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
