import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { commands } from '../../cli/commands/index';
import { runCli } from '../../cli/run-cli';
import { emulatorControl } from '../../emulator/control-client';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { type EmbeddedStack, startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { captureIo } from '../cli/capture-io';
import { deleteAsRetentionWould } from '../harness/retention';
import { harnessEnv, harnessValue } from '../harness/env';
import { uniqueTaskQueue } from '../harness/worker';

/** Every string and number of a value, as text. */
function leaves(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string' || typeof value === 'number') into.push(String(value));
  else if (Array.isArray(value)) for (const item of value) leaves(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) leaves(item, into);
  return into;
}

// Temporal's retention removes closed workflows after days; a business keeps a verification's
// record for as long as it chooses: the reference stays used, the data erasable, the ending provable.
describe('verification records, once Temporal no longer keeps the workflow', () => {
  let stack: EmbeddedStack;
  let store: IdvStore;
  let connection: Connection;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-records-'));
    stack = await startEmbeddedStack({
      dataDir,
      temporalPort: 0,
      uiPort: 0,
      taskQueue: uniqueTaskQueue('records'),
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
    });
    env = { IDV_DATA_DIR: dataDir };
    store = await openLocalStore(dataDir);
    connection = await Connection.connect({ address: stack.info.temporalAddress });
  }, 60_000);
  afterAll(async () => {
    await connection?.close();
    await store?.close();
    await stack?.stop();
    if (stack) await rm(stack.dataDir, { recursive: true, force: true });
  });

  async function idv(...args: string[]) {
    const io = captureIo(env);
    const code = await runCli(args, commands, io);
    return {
      code,
      out: io.out(),
      err: io.err(),
      json: () => JSON.parse(io.out()) as Record<string, unknown>,
    };
  }

  it('answers status from the record, refuses the reference again, and redacts by reference', async () => {
    const reference = `records-${Date.now()}`;
    const started = await idv(
      'verify',
      '--reference',
      reference,
      '--redact-after',
      'never',
      '--wait',
      '--json',
    );
    expect(started.code).toBe(0);
    const sessionId = String(started.json().sessionId);
    const { dataKeyId } = (await idv('status', reference, '--json')).json() as { dataKeyId: string };
    const identity = stack.emulator.store.sessions.get(sessionId)?.identity ?? {};
    const personal = leaves([identity.person, identity.document]).filter((value) => value.length >= 4);
    expect(personal.length).toBeGreaterThan(3);

    await deleteAsRetentionWould(new Client({ connection }), `idv-${reference}`);

    const status = await idv('status', reference, '--json');
    expect(status.code).toBe(0);
    expect(status.json()).toMatchObject({
      reference,
      status: 'succeeded',
      sessionId,
      dataKeyId,
      fromRecord: true,
    });
    expect((await idv('status', reference)).out).toContain('from its record');

    const again = await idv('verify', '--reference', reference, '--json');
    expect(again.code).toBe(1);
    expect(again.err).toContain(`verification ${reference} has already ended`);

    const redacted = await idv('redact', reference, '--json');
    expect(redacted.code).toBe(0);
    expect(redacted.json()).toMatchObject({ reference, sessionId, dataKeyDestroyed: true });
    const atService = await emulatorControl(stack.info.emulator?.controlUrl ?? '')(
      'GET',
      `/sessions/${sessionId}`,
    );
    expect(atService.redacted).not.toBeNull();
    expect(await store.dataKeys.get(dataKeyId)).toMatchObject({ state: 'destroyed' });

    const listed = await idv('records', '--output', 'jsonl');
    const lines = listed.out.trim().split('\n');
    const record = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((r) => r.reference === reference);
    expect(record).toMatchObject({
      reference,
      status: 'succeeded',
      sessionId,
      dataKeyId,
      provider: 'trinsic-test-database-lookup',
      redactedAt: expect.any(String),
    });
    expect(record).not.toHaveProperty('redactionDueAt');
    // Ids, statuses and times only: none of the person's values.
    for (const value of personal) expect(listed.out).not.toContain(value);
    expect((await idv('records', '--redaction', 'done', '--json')).json()).toEqual(
      expect.arrayContaining([expect.objectContaining({ reference })]),
    );
    const keyring = await idv('keyring', '--json');
    expect(keyring.json()).toMatchObject({ keyIds: [expect.stringMatching(/^kek-/)] });
    expect(keyring.out).not.toMatch(/"key":/);
    // Erased just now: a purge of records erased more than a day ago keeps it.
    expect((await idv('records', 'purge', '--older-than', '1d', '--json')).json()).toMatchObject({
      purged: 0,
    });
  }, 240_000);

  it('refuses a records command that does not make sense, before opening anything', async () => {
    expect((await idv('records', 'purge')).code).toBe(2);
    expect((await idv('records', 'purge', '--status', 'failed', '--older-than', '1d')).code).toBe(2);
    expect((await idv('records', '--status', 'lost')).code).toBe(2);
    expect((await idv('records', '--since', 'yesterday')).code).toBe(2);
    expect((await idv('records', '--limit', '0')).code).toBe(2);
  });
});
