import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../workers/dev/free-port';
import { createLogger } from '../../workers/log/logger';
import { receiverLog } from '../../workers/log/receiver-log';
import { runtimeLogger } from '../../workers/logging';
import { startReceiver } from '../../workers/receiver/receiver-server';
import { ReceiverTokens } from '../../codec/receiver-tokens';
import { harnessEnv, harnessValue } from '../harness/env';
import { eventually } from '../harness/eventually';
import { logCapture } from '../harness/log-capture';
import { startIdvProcess } from '../harness/worker-process';

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcd';
const SECRET = 'receiver-logs-secret-0123456789abcdefgh';

/** POSTs one well-formed delivery to the receiver with a token in the path and a secret in the query. */
async function deliver(url: string) {
  return await fetch(`${url}?sig=query-secret`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      message_type: 'new_connection',
      object_id: 'o-1',
      data: { connection_id: 'c-1' },
    }),
  });
}

describe('JSON logs with the redaction rules', () => {
  it('writes one JSON object per line with level, time and message, then fields', () => {
    const out = logCapture();
    createLogger({ destination: out.destination }).info({ spoolDepth: 3 }, 'spool drained');
    expect(out.raw).toEqual([
      expect.stringMatching(/^\{"level":"info","time":\d+,"spoolDepth":3,"msg":"spool drained"\}$/),
    ]);
  });

  it('logs nothing below its level', () => {
    const out = logCapture();
    const logger = createLogger({ destination: out.destination, level: 'warn' });
    logger.info('not shown');
    logger.warn('shown');
    expect(out.lines.map((line) => line.msg)).toEqual(['shown']);
  });

  it('censors secret and personal fields, nested too', () => {
    const out = logCapture();
    createLogger({ destination: out.destination }).warn(
      {
        apiKey: 'sk_live_123',
        resultsAccessKey: 'rak_456',
        workflow: { input: { args: [{ providerInput: { identityCode: '123456' } }] } },
        outcome: { status: 'succeeded', result: { identity: { givenName: 'Ada', familyName: 'Lovelace' } } },
        request: { authorization: 'Bearer xyz', provider: 'yoti' },
        sessionId: 'sess-1',
      },
      'refused',
    );
    expect(out.lines[0]).toMatchObject({
      apiKey: '[redacted]',
      resultsAccessKey: '[redacted]',
      workflow: { input: '[redacted]' },
      outcome: { status: 'succeeded', result: { identity: '[redacted]' } },
      request: { authorization: '[redacted]', provider: 'yoti' },
      sessionId: 'sess-1',
    });
    expect(out.raw.join('\n')).not.toMatch(/sk_live|rak_456|Lovelace|123456|xyz/);
  });

  it('scrubs the token and query of a URL in the message, in fields and in interpolated values', () => {
    const out = logCapture();
    createLogger({ destination: out.destination }).info(
      { target: `http://platform/agent/t/${TOKEN}?key=abc` },
      'retrying %s with %o',
      `/agent/t/${TOKEN}`,
      { headers: { 'x-api-key': 'sk_1' } },
    );
    expect(out.lines[0]).toMatchObject({
      target: 'http://platform/agent/t/[redacted]?[redacted]',
      msg: 'retrying /agent/t/[redacted] with {"headers":{"x-api-key":"[redacted]"}}',
    });
    expect(out.raw[0]).not.toMatch(new RegExp(`${TOKEN}|abc|sk_1`));
  });

  it('logs an error as its type and scrubbed message, without a stack, also where pino makes the message from it', () => {
    const out = logCapture();
    const logger = createLogger({ destination: out.destination });
    const error = new TypeError(`fetch failed for https://platform/agent/t/${TOKEN}?key=1`);
    logger.error(error);
    logger.error({ err: error }, `delivery to /agent/t/${TOKEN} failed`);
    const scrubbed = 'fetch failed for https://platform/agent/t/[redacted]?[redacted]';
    expect(out.lines).toEqual([
      expect.objectContaining({ err: { type: 'TypeError', message: scrubbed }, msg: scrubbed }),
      expect.objectContaining({
        err: { type: 'TypeError', message: scrubbed },
        msg: 'delivery to /agent/t/[redacted] failed',
      }),
    ]);
    expect(out.raw.join('\n')).not.toContain(TOKEN);
    expect(out.raw.join('\n')).not.toContain('at ');
  });

  it('adds the scrubbed stack of an error at debug level only', () => {
    const out = logCapture();
    const error = new Error(`failed at /agent/t/${TOKEN}`);
    createLogger({ destination: out.destination, level: 'debug' }).warn({ err: error }, 'expected failure');
    const fields = out.lines[0]?.err as { stack?: string };
    expect(fields.stack).toContain('logging.test.ts');
    expect(fields.stack).not.toContain(TOKEN);
    expect(out.raw).toHaveLength(1);
  });

  it("applies the rules to a child logger's bindings", () => {
    const out = logCapture();
    createLogger({ destination: out.destination })
      .child({ apiKey: 'bound-key', endpoint: `http://h/t/${TOKEN}` })
      .info('bound');
    expect(out.lines[0]).toMatchObject({ apiKey: '[redacted]', endpoint: 'http://h/t/[redacted]' });
    expect(out.raw[0]).not.toMatch(new RegExp(`bound-key|${TOKEN}`));
  });

  it("sends the Temporal runtime's lines through the same rules, meta as fields", () => {
    const out = logCapture();
    const logger = runtimeLogger('WARN', [], createLogger({ destination: out.destination }));
    logger.info('worker state changed', { state: 'RUNNING' });
    logger.warn('Activity failed', {
      workflowId: 'idv-order-1',
      activityType: 'createSession',
      apiKey: 'k',
      error: Object.assign(new Error(`POST /agent/t/${TOKEN} answered 500`), { details: ['Ada'] }),
    });
    logger.warn('Activity not found on completion', {});
    expect(out.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        source: 'temporal',
        msg: 'Activity failed',
        workflowId: 'idv-order-1',
        activityType: 'createSession',
        apiKey: '[redacted]',
        error: { type: 'Error', message: 'POST /agent/t/[redacted] answered 500' },
      }),
    ]);
  });

  it("writes the receiver's events with their fields and level, as component receiver", () => {
    const out = logCapture();
    const log = receiverLog(createLogger({ destination: out.destination }));
    log('spool drained: deliveries handed to Temporal', { replayed: 2 });
    log('a request failed', { failure: 'EACCES' }, 'error');
    expect(out.lines).toEqual([
      {
        level: 'info',
        time: expect.any(Number),
        component: 'receiver',
        replayed: 2,
        msg: 'spool drained: deliveries handed to Temporal',
      },
      {
        level: 'error',
        time: expect.any(Number),
        component: 'receiver',
        failure: 'EACCES',
        msg: 'a request failed',
      },
    ]);
  });

  describe('the receiver, with Temporal away', () => {
    let dataDir: string;
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'idv-receiver-logs-'));
    });
    afterAll(async () => {
      await rm(dataDir, { recursive: true, force: true });
    });

    it('logs the spooling as a JSON event with its fields, and no token or query anywhere', async () => {
      const out = logCapture();
      const tokens = new ReceiverTokens(SECRET);
      // Nobody listens there: deliveries go to the spool.
      const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
      const receiver = await startReceiver({
        client: new Client({ connection }),
        taskQueue: 'receiver-logs',
        tokens,
        spoolDir: join(dataDir, 'in-process-spool'),
        handOffTimeoutMs: 1_000,
        log: receiverLog(createLogger({ destination: out.destination })),
      });
      try {
        const response = await deliver(`${receiver.url}/agent/tenant-l/${tokens.tenantToken('tenant-l')}`);
        expect(response.status).toBe(202);
        expect(out.lines).toEqual([
          expect.objectContaining({
            level: 'warn',
            component: 'receiver',
            msg: 'Temporal is not taking deliveries: spooling them until it does',
            failure: expect.any(String),
            spoolDepth: 1,
          }),
        ]);
        expect(out.raw.join('\n')).not.toContain(tokens.tenantToken('tenant-l'));
        expect(out.raw.join('\n')).not.toContain('query-secret');
      } finally {
        await receiver.close();
        await connection.close();
      }
    }, 30_000);

    it('`idv receiver` writes the same events as JSON lines to stderr', async () => {
      const port = await freePort();
      const receiver = await startIdvProcess(
        ['receiver', '--port', String(port)],
        {
          TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
          IDV_ENCRYPTION_KEYS: harnessValue(harnessEnv.encryptionKeys),
          IDV_RECEIVER_SECRET: SECRET,
          IDV_DATA_DIR: dataDir,
        },
        'listening on',
      );
      const token = new ReceiverTokens(SECRET).tenantToken('tenant-l');
      try {
        expect((await deliver(`http://127.0.0.1:${port}/agent/tenant-l/${token}`)).status).toBe(202);
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
        expect(event).toMatchObject({
          level: 'warn',
          component: 'receiver',
          time: expect.any(Number),
          spoolDepth: 1,
        });
      } finally {
        expect(await receiver.stop()).toBe(0);
      }
      expect(receiver.output()).not.toContain(token);
      expect(receiver.output()).not.toContain('query-secret');
    }, 60_000);
  });
});
