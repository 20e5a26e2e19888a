import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { TimeoutError } from '../../api/http/errors';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { SESSION_ID } from './mock-service';

// Timeouts need a real socket: a local server that stalls on purpose.
describe('identity service client: timeouts against a stalling server', () => {
  let server: Server;
  let client: IdentityClient;
  const stalled: Array<() => void> = [];
  let stallBody = false;
  // Each answer's body comes a byte at a time, never stalling as long as bodyTimeoutMs.
  let dripBody = false;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (dripBody) {
        response.writeHead(200, { 'content-type': 'application/json' });
        const drip = setInterval(() => response.write(' '), 50);
        stalled.push(() => clearInterval(drip));
      } else if (stallBody) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"session":');
      }
      stalled.push(() => response.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = createIdentityClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      headersTimeoutMs: 150,
      bodyTimeoutMs: 150,
      answerTimeoutMs: 2_000,
    });
  });

  afterAll(async () => {
    for (const release of stalled) release();
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives up waiting for headers after headersTimeoutMs with a retryable TimeoutError', async () => {
    const error: unknown = await client.sessions.get(SESSION_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ retryable: true, operation: 'GetSession' });
    expect((error as Error).message).toContain('headers');
  });

  it('gives up on a body that stops arriving after bodyTimeoutMs', async () => {
    stallBody = true;
    const error: unknown = await client.sessions.get(SESSION_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toContain('body');
  });

  it('gives up on an answer that drips in for longer than answerTimeoutMs in all', async () => {
    stallBody = false;
    dripBody = true;
    const error: unknown = await client.sessions.get(SESSION_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ retryable: true, operation: 'GetSession' });
    expect((error as Error).message).toContain('whole answer');
  });

  it('ends a call whose answer has no body at its status, though the body drips in', async () => {
    dripBody = true;
    await expect(client.sessions.redact(SESSION_ID)).resolves.toBeUndefined();
  });
});
