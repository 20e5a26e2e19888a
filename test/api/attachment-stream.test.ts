import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MalformedResponseError, ResponseTooLargeError } from '../../api/http/errors';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { ATTACHMENT_ID, SESSION_ID } from './mock-service';
import { LocalBlobStore } from '../../stores/local/local-blob-store';

// Streaming needs a real socket: a local server that writes the answer in parts, on cue.
describe('GetAttachment streamed into the blob store', () => {
  let server: Server;
  let client: IdentityClient;
  let directory: string;
  let blobs: LocalBlobStore;
  let respond: (response: ServerResponse) => void | Promise<void> = () => undefined;
  const args = { sessionId: SESSION_ID, attachmentId: ATTACHMENT_ID, resultsAccessKey: 'rak_secret' };

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => void respond(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = createIdentityClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', maxBodyBytes: 1024 });
    directory = await mkdtemp(join(tmpdir(), 'idv-blobs-'));
    blobs = new LocalBlobStore(directory);
  });

  afterAll(async () => {
    await client.close();
    await new Promise((resolve) => server.close(resolve));
    await rm(directory, { recursive: true, force: true });
  });

  const json = (response: ServerResponse) => response.writeHead(200, { 'content-type': 'application/json' });
  const filesOf = async () => await readdir(join(directory, SESSION_ID)).catch(() => []);

  it('hands the content to the store while the answer still arrives, whatever the member order', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 1);
    const base64 = bytes.toString('base64');
    let firstChunkSeen!: () => void;
    const firstChunk = new Promise<void>((resolve) => (firstChunkSeen = resolve));
    respond = async (response) => {
      json(response);
      response.write('{"extra": {"nested": [1, "x"]}, "content": "');
      response.write(base64.slice(0, 100_001));
      // The rest is written only once the store has received content: streamed, not buffered.
      await firstChunk;
      for (let at = 100_001; at < base64.length; at += 65_537) response.write(base64.slice(at, at + 65_537));
      response.end('", "contentType": "image/png"}');
    };
    let chunks = 0;
    const answer = await client.sessions.downloadAttachment({ ...args, maxBytes: bytes.length }, (content) =>
      blobs.put(SESSION_ID, 'front', counted(content)),
    );
    async function* counted(content: AsyncIterable<Buffer>) {
      for await (const chunk of content) {
        chunks += 1;
        firstChunkSeen();
        yield chunk;
      }
    }
    expect(answer.contentType).toBe('image/png');
    expect(answer.stored).toMatchObject({
      sizeBytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(chunks).toBeGreaterThan(2);
    expect((await readFile(fileURLToPath(answer.stored.uri))).equals(bytes)).toBe(true);
  });

  // A content that fails midway leaves no file; one read whole before the answer turned out
  // malformed stays complete until the retry overwrites it or the redaction deletes it.
  it.each([
    ['not base64', '{"contentType": "image/png", "content": "Jane*Doe"}', false, false],
    ['padding midway', '{"contentType": "image/png", "content": "QQ==QUFB"}', false, false],
    ['a short last group', '{"contentType": "image/png", "content": "QUFBQ"}', false, false],
    ['a truncated answer', '{"contentType": "image/png", "content": "QUFB', true, false],
    ['no contentType', '{"content": "QUFB"}', false, true],
    ['content twice', '{"contentType": "a", "content": "QUFB", "content": "QUFB"}', false, true],
  ])('refuses %s as a malformed answer without its text', async (name, body, retryable, stored) => {
    respond = (response) => {
      json(response);
      response.end(body);
    };
    const blobName = name.replace(/\W/g, '-');
    const download = client.sessions.downloadAttachment({ ...args, maxBytes: 64 }, (content) =>
      blobs.put(SESSION_ID, blobName, content),
    );
    await expect(download).rejects.toBeInstanceOf(MalformedResponseError);
    await expect(download).rejects.toMatchObject({ retryable, rawBody: undefined });
    await expect(download).rejects.not.toHaveProperty('message', expect.stringContaining('Jane'));
    const files = (await filesOf()).filter((file) => file.startsWith(blobName));
    expect(files).toEqual(stored ? [blobName] : []);
  });

  it('stops reading an answer larger than the bound and leaves no partial file', async () => {
    respond = (response) => {
      json(response);
      response.write('{"contentType": "image/png", "content": "');
      response.end(`${'QUFB'.repeat(2000)}"}`);
    };
    const download = client.sessions.downloadAttachment({ ...args, maxBytes: 1000 }, (content) =>
      blobs.put(SESSION_ID, 'large', content),
    );
    await expect(download).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect((await filesOf()).filter((name) => name.startsWith('large'))).toEqual([]);
  });
});
