import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../workers/dev/free-port';
import { createLogger } from '../../workers/log/logger';
import { scrub } from '../../workers/log/redaction';
import { runtimeLogger } from '../../workers/logging';
import { TenantTokens } from '../../workers/receiver/tenant-tokens';
import { harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { startIdvProcess } from '../harness/worker-process';

/** A pino destination that keeps each JSON line, parsed. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  return {
    lines,
    raw,
    destination: {
      write(text: string) {
        for (const line of text.split('\n').filter(Boolean)) {
          raw.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
      },
    },
  };
}

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcd';

describe('JSON logs with the redaction rules', () => {
  it('writes one JSON object per line with level, time and message', () => {
    const out = capture();
    createLogger({ destination: out.destination }).info({ spoolDepth: 3 }, 'spool drained');
    expect(out.lines).toEqual([
      { level: 'info', time: expect.any(Number), spoolDepth: 3, msg: 'spool drained' },
    ]);
  });

  it('censors secret and personal fields, at the top level and one level down', () => {
    const out = capture();
    createLogger({ destination: out.destination }).warn(
      {
        apiKey: 'sk_live_123',
        resultsAccessKey: 'rak_456',
        identity: { givenName: 'Ada', familyName: 'Lovelace' },
        request: { providerInput: { identityCode: '123456' }, authorization: 'Bearer xyz', provider: 'yoti' },
        status: 'failed',
      },
      'refused',
    );
    expect(out.lines[0]).toMatchObject({
      apiKey: '[redacted]',
      resultsAccessKey: '[redacted]',
      identity: '[redacted]',
      request: { providerInput: '[redacted]', authorization: '[redacted]', provider: 'yoti' },
      status: 'failed',
    });
    expect(out.raw.join('\n')).not.toMatch(/sk_live|rak_456|Lovelace|123456|xyz/);
  });

  it('scrubs path tokens, query strings, URL passwords, bearer tokens and payload keys from strings', () => {
    expect(scrub(`POST http://127.0.0.1:8234/agent/tenant-1/${TOKEN} refused`)).toBe(
      'POST http://127.0.0.1:8234/agent/tenant-1/[redacted] refused',
    );
    expect(scrub('back to https://shop.example/return/order-1?resultsAccessKey=abc&x=1 then')).toBe(
      'back to https://shop.example/return/order-1?[redacted] then',
    );
    expect(scrub('store postgres://idv:s3cret@db:5432/idv down')).toBe(
      'store postgres://idv:[redacted]@db:5432/idv down',
    );
    expect(scrub('header Bearer eyJhbGciOi.abc-def')).toBe('header Bearer [redacted]');
    expect(scrub(`keys k1:${Buffer.alloc(32, 9).toString('base64')}`)).toBe('keys k1:[redacted]');
  });

  it('logs an error as its type and scrubbed message, without a stack', () => {
    const out = capture();
    const error = new TypeError(`fetch failed for https://platform/agent/t/${TOKEN}?key=1`);
    createLogger({ destination: out.destination }).error(
      { err: error },
      `delivery to /agent/t/${TOKEN} failed`,
    );
    expect(out.lines[0]).toMatchObject({
      err: { type: 'TypeError', message: 'fetch failed for https://platform/agent/t/[redacted]?[redacted]' },
      msg: 'delivery to /agent/t/[redacted] failed',
    });
    expect(out.raw[0]).not.toContain(TOKEN);
    expect(out.raw[0]).not.toContain('at ');
  });

  it('adds the scrubbed stack of an error at debug level only', () => {
    const out = capture();
    const error = new Error(`failed at /agent/t/${TOKEN}`);
    createLogger({ destination: out.destination, level: 'debug' }).warn({ err: error }, 'expected failure');
    const fields = out.lines[0]?.err as { stack?: string };
    expect(fields.stack).toContain('logging.test.ts');
    expect(fields.stack).not.toContain(TOKEN);
    expect(out.raw).toHaveLength(1);
  });

  it("sends the Temporal runtime's lines through the same rules, meta as fields", () => {
    const out = capture();
    const logger = runtimeLogger('WARN', [], createLogger({ destination: out.destination }));
    logger.info('worker state changed', { state: 'RUNNING' });
    logger.warn('Activity failed', { workflowId: 'idv-order-1', activityType: 'createSession', apiKey: 'k' });
    logger.warn('Activity not found on completion', {});
    expect(out.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        source: 'temporal',
        msg: 'Activity failed',
        workflowId: 'idv-order-1',
        activityType: 'createSession',
        apiKey: '[redacted]',
      }),
    ]);
  });

  describe('the receiver process', () => {
    let dataDir: string;
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'idv-receiver-logs-'));
    });
    afterAll(async () => {
      await rm(dataDir, { recursive: true, force: true });
    });

    it('logs JSON events without the tenant token when Temporal is away and deliveries are spooled', async () => {
      const secret = 'receiver-logs-secret-0123456789abcdefgh';
      const port = await freePort();
      const receiver = await startIdvProcess(
        ['receiver', '--port', String(port)],
        {
          // Nobody listens there: deliveries go to the spool.
          TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
          IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
          IDV_RECEIVER_SECRET: secret,
          IDV_DATA_DIR: dataDir,
        },
        'listening on',
      );
      const token = new TenantTokens(secret).tokenOf('tenant-l');
      try {
        const response = await fetch(`http://127.0.0.1:${port}/agent/tenant-l/${token}?sig=query-secret`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            message_type: 'new_connection',
            object_id: 'o-1',
            data: { connection_id: 'c-1' },
          }),
        });
        expect(response.status).toBe(202);
        const event = await eventually(() => {
          const lines = receiver
            .output()
            .split('\n')
            .filter((line) => line.startsWith('{'));
          return Promise.resolve(
            lines
              .map((line) => JSON.parse(line) as Record<string, unknown>)
              .find((line) => String(line.msg).includes('spooling')),
          );
        }, 'the spooling event');
        expect(event).toMatchObject({ level: 'info', component: 'receiver', time: expect.any(Number) });
      } finally {
        expect(await receiver.stop()).toBe(0);
      }
      expect(receiver.output()).not.toContain(token);
      expect(receiver.output()).not.toContain('query-secret');
    }, 60_000);
  });
});
