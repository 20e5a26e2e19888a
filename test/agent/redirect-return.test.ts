import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { request } from 'undici';
import { receiverReturnUrl } from '../../package/client';
import { ReceiverTokens } from '../../codec/receiver-tokens';
import { freePort } from '../../workers/dev/free-port';
import { startReceiver } from '../../workers/receiver/receiver-server';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { harnessEnv, harnessValue } from '../harness/env';
import { useVerificationStack } from '../harness/verification-stack';

const FINAL_URL = 'https://shop.example/thanks?order=42';

/** The answer as the browser gets it, all but its date: what it can learn from a return URL. */
async function answerTo(url: string) {
  const response = await request(url);
  const { date: _date, ...headers } = response.headers;
  return { status: response.statusCode, headers, body: await response.body.text() };
}

describe('receiver: the user returns from a redirect flow', () => {
  const stack = useVerificationStack({}, { receiver: true });
  const receiverUrl = () => stack().receiver?.url ?? '';
  const returnUrl = (reference: string) =>
    receiverReturnUrl({ receiverUrl: receiverUrl(), receiverSecret: stack().receiverSecret, reference });
  const sessionCalls = async (sessionId: string) => {
    const counters = await stack().control('GET', '/counters');
    return (counters.bySession as Record<string, Record<string, number>>)[sessionId] ?? {};
  };
  const signalsTo = async (reference: string) => {
    const history = await stack().client.workflow.getHandle(verificationWorkflowId(reference)).fetchHistory();
    return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
  };
  /** A verification the user has finished at the service, that only its return can end in time. */
  const finishedVerification = async () => {
    const draft = stack().request();
    const { handle, nextStep } = await stack().idv.startVerification({
      ...draft,
      redirectUrl: returnUrl(draft.reference),
      finalUrl: FINAL_URL,
      // No poll for a minute.
      polling: { initialMs: 60_000, maxMs: 60_000 },
      redactAfter: 'never',
    });
    await stack().control('POST', `/sessions/${nextStep.sessionId}/complete`);
    return { reference: draft.reference, handle, sessionId: nextStep.sessionId };
  };

  it('tells the verification at once through its tokened URL and sends the browser on to the final URL, dropping the access key', async () => {
    const { reference, handle, sessionId } = await finishedVerification();
    const before = (await sessionCalls(sessionId)).GetSession ?? 0;
    const response = await request(`${returnUrl(reference)}?resultsAccessKey=secret-access-key`);
    await response.body.dump();
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(FINAL_URL);
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect(((await sessionCalls(sessionId)).GetSession ?? 0) - before).toBe(1);
  }, 30_000);

  it('answers a return without its token, with a wrong one, and for an unknown reference alike: no signal, no service call, no final URL', async () => {
    const { reference, handle, sessionId } = await finishedVerification();
    const before = await sessionCalls(sessionId);
    const unknown = `never-started-${reference}`;
    const base = `${receiverUrl()}/return/${reference}`;
    const refused = [
      base,
      `${base}/`,
      `${base}/${randomBytes(32).toString('base64url')}`,
      `${base}/${stack().tokens.returnToken(unknown)}`,
      `${base}/${stack().tokens.tenantToken(reference)}`,
      `${base}/${stack().tokens.returnToken(reference).slice(0, -1)}`,
      `${receiverUrl()}/return/${unknown}`,
      `${receiverUrl()}/return/${unknown}/${randomBytes(32).toString('base64url')}`,
    ];
    // Past the token (made with the secret): Temporal does not know it.
    const unknownAnswer = await answerTo(`${returnUrl(unknown)}?resultsAccessKey=k`);
    expect(unknownAnswer.status).toBe(404);
    expect(unknownAnswer.headers.location).toBeUndefined();
    expect(unknownAnswer.body).not.toContain('shop.example');
    for (const url of refused)
      expect([url, await answerTo(`${url}?resultsAccessKey=k`)]).toEqual([url, unknownAnswer]);
    expect(await signalsTo(reference)).toBe(0);
    expect(await sessionCalls(sessionId)).toEqual(before);
    // The refusals spent nothing of the reference's signal allowance: its own return still counts.
    const back = await answerTo(returnUrl(reference));
    expect([back.status, back.headers.location]).toEqual([303, FINAL_URL]);
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    expect(((await sessionCalls(sessionId)).GetSession ?? 0) - (before.GetSession ?? 0)).toBe(1);
  }, 30_000);

  it('thanks the user when the verification has no final URL', async () => {
    const draft = stack().request({ redactAfter: 'never' });
    const { handle } = await stack().idv.startVerification(draft);
    const response = await request(returnUrl(draft.reference));
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toMatch(/you can close this window/);
    await handle.cancel('done');
  });

  it('still sends the browser on when the signal fails, and says so (the verification learns its outcome by polling)', async () => {
    const { reference, handle } = await finishedVerification();
    // A Temporal that answers the return's look-up and then refuses its signal (a slow server, a
    // workflow ending meanwhile).
    const refusing = new Client({
      connection: stack().client.connection,
      dataConverter: stack().client.options.dataConverter,
      interceptors: {
        workflow: [{ signal: () => Promise.reject(new Error('deadline exceeded')) }],
      },
    });
    const said: Array<{ message: string; level?: string }> = [];
    const receiver = await startReceiver({
      client: refusing,
      taskQueue: stack().taskQueue,
      tokens: stack().tokens,
      spoolDir: join(stack().dataDir, `spool-${reference}`),
      log: (message, _fields, level) => said.push({ message, level }),
    });
    try {
      const response = await request(
        receiverReturnUrl({ receiverUrl: receiver.url, receiverSecret: stack().receiverSecret, reference }),
      );
      await response.body.dump();
      expect(response.statusCode).toBe(303);
      expect(said).toEqual([
        {
          message: 'a return could not be told to its verification: it learns its outcome by polling',
          level: 'warn',
        },
      ]);
      expect(await signalsTo(reference)).toBe(0);
    } finally {
      await receiver.close();
      await handle.cancel('test clean-up');
    }
  }, 30_000);

  it('says nothing when the verification ended between the look-up and the signal: nothing failed', async () => {
    const { reference, handle } = await finishedVerification();
    // The return's look-up finds it running; it ends before the signal is sent. Ended once the
    // look-up has answered, on a connection of its own: neither the look-up's deadline nor the
    // signal's (set when the signal begins) bounds the ending.
    const connection = await Connection.connect({ address: harnessValue(harnessEnv.temporalAddress) });
    const ending = new Client({
      connection,
      dataConverter: stack().client.options.dataConverter,
      interceptors: {
        workflow: [
          {
            describe: async (input, next) => {
              const description = await next(input);
              await handle.cancel('ended meanwhile');
              await handle.result().catch(() => undefined);
              return description;
            },
          },
        ],
      },
    });
    const said: string[] = [];
    const receiver = await startReceiver({
      client: ending,
      taskQueue: stack().taskQueue,
      tokens: stack().tokens,
      spoolDir: join(stack().dataDir, `spool-${reference}`),
      log: (message) => said.push(message),
    });
    try {
      const response = await request(
        receiverReturnUrl({ receiverUrl: receiver.url, receiverSecret: stack().receiverSecret, reference }),
      );
      await response.body.dump();
      expect(response.statusCode).toBe(303);
      const workflow = stack().client.workflow.getHandle(verificationWorkflowId(reference));
      expect((await workflow.describe()).status.name).not.toBe('RUNNING');
      expect(said).toEqual([]);
    } finally {
      await receiver.close();
      await connection.close();
    }
  }, 30_000);

  it('answers 404 for a reference it does not know, that is not a reference, or names another workflow', async () => {
    await stack().webhooks.register('tenant-1', { url: 'https://hooks.example/r' });
    for (const reference of ['never-started-reference', 'user@example.com', 'agent-webhooks-tenant-1']) {
      const response = await request(returnUrl(reference));
      await response.body.dump();
      expect([reference, response.statusCode]).toEqual([reference, 404]);
    }
  });
});

describe('receiver: a return, with Temporal away', () => {
  const secret = randomBytes(32).toString('hex');
  const tokens = new ReceiverTokens(secret);
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-return-away-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('checks the token before asking Temporal anything', async () => {
    // Nobody listens there: whatever asks Temporal gets the 503 page.
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
    const receiver = await startReceiver({
      client: new Client({ connection }),
      taskQueue: 'return-away',
      tokens,
      spoolDir: join(dataDir, 'spool'),
    });
    try {
      const wrong = await answerTo(`${receiver.url}/return/order-4711/${tokens.returnToken('order-4712')}`);
      expect(wrong.status).toBe(404);
      expect(await answerTo(`${receiver.url}/return/order-4711`)).toEqual(wrong);
      expect((await answerTo(tokens.returnUrl(receiver.url, 'order-4711'))).status).toBe(503);
    } finally {
      await receiver.close();
      await connection.close();
    }
  }, 30_000);
});
