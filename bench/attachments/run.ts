// bench/attachments: one 25 MiB attachment fetched the way fetchResults does (streamed into the
// blob store) versus read whole and decoded in memory (the earlier way), each in its own process
// against a local server that generates the answer on the fly. Records peak RSS growth and time.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createIdentityClient } from '../../api/identity/identity-client';
import { sealStream } from '../../codec/sealed-stream';
import { recordSection } from '../support/record';
import { LocalBlobStore } from '../../stores/local/local-blob-store';

const SIZE = 25 * 1024 * 1024;
const SESSION_ID = '678c1ff6-2178-49e7-81d2-548afb6f85ec';
const ATTACHMENT_ID = '9b2f1d52-93a5-4c0a-8f3e-2f5f0d1a7c11';
type Variant = 'sealed' | 'streamed' | 'buffered';
interface Measured {
  variant: Variant;
  seconds: number;
  peakRssGrowthMiB: number;
}

/** Serves `{"contentType", "content": <SIZE bytes in base64>}`, 3 MiB of content per write. */
async function serve(): Promise<{ url: string; close(): Promise<void> }> {
  const block = Buffer.alloc(3 * 1024 * 1024, 7).toString('base64');
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"contentType": "image/png", "content": "');
    let left = SIZE;
    const more = () => {
      while (left > 0) {
        const bytes = Math.min(left, 3 * 1024 * 1024);
        left -= bytes;
        const text = bytes === 3 * 1024 * 1024 ? block : Buffer.alloc(bytes, 7).toString('base64');
        if (!response.write(text)) return void response.once('drain', more);
      }
      response.end('"}');
    };
    more();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) };
}

async function measure(variant: Variant, url: string): Promise<Measured> {
  const client = createIdentityClient({ baseUrl: url, apiKey: 'k', budget: 'unlimited' });
  const directory = await mkdtemp(join(tmpdir(), 'idv-bench-blobs-'));
  const args = {
    sessionId: SESSION_ID,
    attachmentId: ATTACHMENT_ID,
    resultsAccessKey: 'rak',
    maxBytes: SIZE,
  };
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = process.hrtime.bigint();
  if (variant === 'sealed') {
    const blobs = new LocalBlobStore(directory);
    const key = randomBytes(32);
    await client.sessions.downloadAttachment(args, (content) =>
      blobs.put(SESSION_ID, 'front', sealStream(key, 'bench', content)),
    );
  } else if (variant === 'streamed') {
    const blobs = new LocalBlobStore(directory);
    await client.sessions.downloadAttachment(args, (content) => blobs.put(SESSION_ID, 'front', content));
  } else {
    const answer = await client.sessions.getAttachment(args);
    await writeFile(join(directory, 'front'), Buffer.from(answer.content, 'base64'));
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  await client.close();
  await rm(directory, { recursive: true, force: true });
  return { variant, seconds, peakRssGrowthMiB: (peak - baseline) / 1024 / 1024 };
}

async function inChild(variant: Variant, url: string): Promise<Measured> {
  const child = fork(__filename, [variant, url], { execArgv: ['--import', 'tsx'] });
  const [message] = (await once(child, 'message')) as [Measured];
  await once(child, 'exit');
  return message;
}

async function main(): Promise<void> {
  const [variant, url] = process.argv.slice(2) as [Variant | undefined, string | undefined];
  if (variant && url) {
    process.send?.(await measure(variant, url));
    return;
  }
  const server = await serve();
  const results = [
    await inChild('sealed', server.url),
    await inChild('streamed', server.url),
    await inChild('buffered', server.url),
  ];
  await server.close();
  const rows = results.map(
    (r) => `| ${r.variant} | ${r.seconds.toFixed(2)} | ${r.peakRssGrowthMiB.toFixed(0)} |`,
  );
  const [sealed, streamed, buffered] = results as [Measured, Measured, Measured];
  const markdown = [
    '## bench/attachments: one 25 MiB attachment, sealed and streamed vs read whole',
    '',
    `A local server answers GetAttachment with 25 MiB of content (33 MiB of base64 JSON), generated as it is sent. Each variant runs in its own process; peak RSS growth is sampled every 5 ms. "sealed" is what fetchResults does (tokens parsed as they arrive, content decoded and sealed under the data key in 64 KiB AES-256-GCM frames into the blob store's temporary file); "streamed" is the same without sealing (the baseline of the sealing cost); "buffered" reads the answer whole and decodes it in memory. Run: \`npm run bench:attachments\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}).`,
    '',
    '| variant | seconds | peak RSS growth MiB |',
    '| ------- | ------- | ------------------- |',
    ...rows,
    '',
    `Peak memory ratio (buffered / streamed): **${(buffered.peakRssGrowthMiB / Math.max(1, streamed.peakRssGrowthMiB)).toFixed(1)}x**; time ratio (streamed / buffered): ${(streamed.seconds / buffered.seconds).toFixed(2)}x; sealing costs ${((sealed.seconds / streamed.seconds - 1) * 100).toFixed(0)} % time over streaming.`,
  ].join('\n');
  recordSection('attachments', markdown);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench/attachments failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
