import { TemporalKeyring } from '../../keyring/client';
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { type Payload } from '@temporalio/common';
import { IdvClient } from '../../verification/client/idv-client';
import { AesGcmPayloadCodec } from '../../codec/aes-gcm-codec';
import { encryptingDataConverter } from '../../codec/data-converter';
import { DataKeyDestroyedError, DataKeys } from '../../codec/data-keys';
import { type EncryptionKey } from '../../codec/encryption-keys';
import { payloadToJson } from '../../codec/codec-payload-json';
import { REDACTED_TEXT } from '../../codec/open-sealed-values';
import { type VerificationRequest } from '../../verification/domain/verification';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { type EmbeddedStack, startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { resolveTemporalBinaries } from '../../workers/dev/temporal-binaries';
import { devEncryptionKeys } from '../../workers/encryption-keys-source';
import { harnessEnv, harnessValue } from '../harness/env';
import { readAll } from '../harness/streams';
import { payloadsIn, sealedIn } from '../harness/history-payloads';

const run = promisify(execFile);

/** The data of every payload in proto3 JSON (as `temporal workflow show -o json` prints), decoded from base64. */
function jsonPayloadTexts(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) jsonPayloadTexts(item, into);
  else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.data === 'string' && record.metadata && typeof record.metadata === 'object')
      into.push(Buffer.from(record.data, 'base64').toString('utf8'));
    else for (const item of Object.values(record)) jsonPayloadTexts(item, into);
  }
  return into;
}

/** Every text of a value: byte arrays as UTF-8, strings as they are. */
function textsOf(value: unknown, into: string[] = []): string[] {
  if (value instanceof Uint8Array) into.push(Buffer.from(value).toString('utf8'));
  else if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) textsOf(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) textsOf(item, into);
  return into;
}

/** Every string and number of a value, as text. */
function leaves(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string' || typeof value === 'number') into.push(String(value));
  else if (Array.isArray(value)) for (const item of value) leaves(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) leaves(item, into);
  return into;
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

// The Done-when of the privacy issue, on the stack `idv dev` runs (dev server persisting to SQLite
// in the data dir, emulator, worker with the data dir's store): successful verifications with data
// and attachments leave nothing readable in raw history; once redacted, not even the payload keys
// read the person back (their data keys are destroyed), and the database file holds none of it.
describe('privacy of Temporal history and the data dir, end to end', () => {
  let dataDir: string;
  let stack: EmbeddedStack;
  let connection: Connection;
  let keys: EncryptionKey[];
  let store: IdvStore;
  let idv: IdvClient;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'idv-privacy-'));
    stack = await startEmbeddedStack({
      dataDir,
      temporalPort: 0,
      uiPort: 0,
      taskQueue: 'privacy',
      workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
    });
    keys = await devEncryptionKeys(dataDir);
    store = await openLocalStore(dataDir);
    connection = await Connection.connect({ address: stack.info.temporalAddress });
    const client = new Client({ connection, dataConverter: encryptingDataConverter(keys) });
    idv = new IdvClient({ client, store, taskQueue: 'privacy', sealBrowserLanguages: true });
  }, 60_000);
  afterAll(async () => {
    await connection?.close();
    await stack?.stop();
    await store?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.info.emulator?.controlUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json().catch(() => ({}))) as Record<string, unknown>;
  };
  const request = (
    reference: string,
    person: Record<string, string>,
    extra: Partial<VerificationRequest>,
  ) => ({
    reference,
    verificationProfileId: stack.info.emulator?.verificationProfileId ?? '',
    provider: 'trinsic-test-database-lookup',
    capabilities: ['PollResult' as const],
    providerInput: { 'trinsic-test-database-lookup': person },
    results: 'data+attachments' as const,
    ...extra,
  });

  it('keeps the person out of raw history, and out of decoded history and the database once redacted', async () => {
    await control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    const runs = [
      {
        reference: `privacy-kept-${Date.now()}`,
        person: { givenName: 'Augusta', familyName: 'Lovelace', identityCode: '981273' },
      },
      {
        reference: `privacy-auto-${Date.now()}`,
        person: { givenName: 'Grace', familyName: 'Hopperton', identityCode: '734519' },
      },
    ];
    // One is kept until redacted on request, the other is redacted right after delivery.
    // The person's browser languages are theirs too (a rare tag tells them apart).
    const first = await idv.startVerification(
      request(runs[0]!.reference, runs[0]!.person, {
        redactAfter: 'never',
        browserLanguages: ['zz-Lvlc9271'],
      }),
    );
    const second = await idv.startVerification(
      request(runs[1]!.reference, runs[1]!.person, { redactAfter: 0 }),
    );
    const outcomes = [await first.handle.result(), await second.handle.result()];
    // Delivered readable to the caller: the test would see a leak if there were one.
    expect(outcomes[0]?.identity).toMatchObject({ person: { familyName: 'Lovelace' } });
    expect(outcomes[0]?.attachments?.length).toBeGreaterThan(0);
    expect(outcomes[1]?.identity).toBeDefined();

    const secrets = [stack.info.emulator?.apiKey ?? 'no api key'];
    for (const outcome of outcomes) {
      const session = stack.emulator.store.sessions.get(outcome.sessionId ?? '');
      const identity = session?.identity as Record<string, Record<string, unknown>> | undefined;
      const person = identity?.person ?? {};
      secrets.push(
        session?.resultsAccessKey ?? 'no key',
        String(person.familyName),
        String(person.dateOfBirth),
        String((person.address as Record<string, unknown> | undefined)?.line1),
        String(identity?.document?.number),
      );
    }
    // Every other value of the person's data long enough to be told apart from chance bytes.
    for (const outcome of outcomes) {
      const identity = stack.emulator.store.sessions.get(outcome.sessionId ?? '')?.identity ?? {};
      for (const value of leaves([identity.person, identity.document, identity.match]))
        if (value.length >= 6) secrets.push(value);
    }
    secrets.push('981273', '734519', 'Augusta', 'Lvlc9271');
    expect(secrets.every((secret) => secret.length >= 6 && !secret.startsWith('undefined'))).toBe(true);

    // 1. Raw history, as `temporal workflow show --output json` sees it: encrypted, nothing readable.
    const plain = new Client({ connection });
    const allHistories = async () => {
      const histories = [];
      for await (const execution of plain.workflow.list()) {
        histories.push(await plain.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory());
      }
      return histories;
    };
    let histories = await allHistories();
    const raw = textsOf(histories).join('\n');
    expect(raw).toContain('binary/encrypted');
    for (const secret of secrets) expect(raw).not.toContain(secret);

    // The web UI of the stack decodes through the codec server: an operator reads the person
    // while the verification keeps its data…
    const settings = (await (await fetch(`${stack.info.temporalUiUrl}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    const token = (await readFile(join(dataDir, 'codec-token'), 'utf8')).trim();
    expect(settings.Codec?.Endpoint).toBe(`${stack.info.codecEndpoint}/t/${token}`);
    const resultPayload = async () => {
      const { events } = await plain.workflow.getHandle(`idv-${runs[0]!.reference}`).fetchHistory();
      const completed = events?.find((event) => event.workflowExecutionCompletedEventAttributes);
      return payloadsIn(completed?.workflowExecutionCompletedEventAttributes?.result)[0] as Payload;
    };
    const decodeThroughUi = async () => {
      const answer = await fetch(`${settings.Codec?.Endpoint}/decode`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: new URL(stack.info.temporalUiUrl ?? '').origin,
        },
        body: JSON.stringify({ payloads: [payloadToJson(await resultPayload())] }),
      });
      expect(answer.status).toBe(200);
      const { payloads } = (await answer.json()) as { payloads: Array<{ data: string }> };
      return Buffer.from(payloads[0]?.data ?? '', 'base64').toString('utf8');
    };
    expect(await decodeThroughUi()).toContain('Lovelace');

    // Stored attachments are sealed under the data key: readable through the client only.
    const [attachment] = outcomes[0]?.attachments ?? [];
    const image = (await readAll(
      await idv.readAttachment(outcomes[0]?.sessionId ?? '', attachment?.id ?? ''),
    )) as Buffer;
    expect(image.length).toBe(attachment?.sizeBytes);
    const slice = image.subarray(Math.floor(image.length / 2), Math.floor(image.length / 2) + 32);
    // The second's redaction (due at once) removes its attachments: ended first, so that the
    // scan reads no folder that goes under it.
    await idv.client.workflow.getHandle(`idv-redact-${outcomes[1]?.sessionId}`).result();
    const stored = await filesUnder(join(dataDir, 'blobs'));
    expect(stored.length).toBeGreaterThan(0);
    for (const file of stored)
      expect({ file, found: (await readFile(file)).includes(slice) }).toEqual({ file, found: false });

    // 2. Redaction: on request for the first; the second's redaction child ran by itself.
    await idv.redactVerification(runs[0]!.reference);
    await expect(first.handle.result()).resolves.toMatchObject({ identityRedacted: true });
    expect(await idv.readAttachment(outcomes[0]?.sessionId ?? '', attachment?.id ?? '')).toBeUndefined();
    expect((await first.handle.result()).identity).toBeUndefined();
    // …and sees it redacted afterwards.
    const redacted = await decodeThroughUi();
    expect(redacted).toContain(REDACTED_TEXT);
    for (const secret of secrets) expect(redacted).not.toContain(secret);
    // The Temporal CLI through the same codec server (`--codec-endpoint`, bearer token).
    const { stdout } = await run(resolveTemporalBinaries().cli, [
      ...['workflow', 'show', '-w', `idv-${runs[0]!.reference}`, '-o', 'json'],
      ...['--address', stack.info.temporalAddress, '--codec-endpoint', stack.info.codecEndpoint ?? ''],
      ...['--codec-auth', `Bearer ${token}`],
    ]);
    const shown = jsonPayloadTexts(JSON.parse(stdout)).join('\n');
    expect(shown).toContain(REDACTED_TEXT);
    for (const secret of secrets) expect(shown).not.toContain(secret);

    // 3. Every payload of every workflow, decoded with the payload keys: still nothing readable.
    histories = await allHistories();
    expect(histories.length).toBeGreaterThanOrEqual(4); // two verifications, two redactions
    const codec = new AesGcmPayloadCodec(keys);
    const decoded = await codec.decode(payloadsIn(histories));
    const decodedTexts = textsOf(decoded.map((payload) => payload.data)).join('\n');
    for (const secret of secrets) expect(decodedTexts).not.toContain(secret);
    const sealed = decoded.flatMap((payload) => {
      try {
        return sealedIn(JSON.parse(Buffer.from(payload.data ?? []).toString('utf8')));
      } catch {
        return [];
      }
    });
    // Start inputs, createSession inputs, fetchResults results and workflow results hold sealed values…
    expect(sealed.length).toBeGreaterThanOrEqual(8);
    // …that nobody can open any more.
    const dataKeys = new DataKeys(
      store.dataKeys,
      new TemporalKeyring({ client: idv.client, taskQueue: 'privacy' }),
    );
    for (const value of sealed)
      await expect(dataKeys.open(value)).rejects.toBeInstanceOf(DataKeyDestroyedError);

    // 4. The data dir, the dev server's database included, once the stack has stopped.
    await stack.stop();
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dataDir, 'temporal.sqlite'))).mode & 0o777).toBe(0o600);
    const files = await filesUnder(dataDir);
    expect(files).toContain(join(dataDir, 'temporal.sqlite'));
    for (const file of files) {
      const bytes = await readFile(file);
      for (const secret of secrets)
        expect({ file, found: bytes.includes(secret) }).toEqual({ file, found: false });
    }
  }, 120_000);
});
