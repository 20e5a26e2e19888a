import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { request } from 'undici';
import { codecServerCommand } from '../../cli/commands/codec-server';
import { AesGcmPayloadCodec } from '../../codec/aes-gcm-codec';
import { payloadFromJson, payloadToJson, type PayloadJson } from '../../codec/codec-payload-json';
import { type CodecServer, startCodecServer } from '../../codec/codec-server';
import { KEYRING_KEY_TEXT, REDACTED_TEXT, SEALED_TEXT } from '../../codec/open-sealed-values';
import { newKeyringEntry } from '../../codec/keyring';
import { DataKeys } from '../../codec/data-keys';
import { newEncryptionKeyEntry, parseEncryptionKeys } from '../../codec/encryption-keys';
import { type IdvStore } from '../../stores/idv-store';
import { openLocalStore } from '../../stores/local/local-store';
import { captureIo } from '../cli/capture-io';
import { FixedKeyring } from '../harness/fixed-keyring';
import { harnessEnv, harnessValue } from '../harness/env';

const TOKEN = 'a'.repeat(24) + 'codec-server-test-token';
const UI_ORIGIN = 'http://localhost:8233';
const keyEntry = newEncryptionKeyEntry('k1');
const keys = parseEncryptionKeys(keyEntry);
const codec = new AesGcmPayloadCodec(keys);
const keyring = new FixedKeyring();

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

describe('codec server: the Temporal UI and CLI read payloads, personal data opened or redacted', () => {
  let dir: string;
  let store: IdvStore;
  let dataKeys: DataKeys;
  let server: CodecServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idv-codec-server-'));
    store = await openLocalStore(dir);
    dataKeys = new DataKeys(store.dataKeys, keyring);
    server = await startCodecServer({
      encryptionKeys: keys,
      keyring,
      store,
      token: TOKEN,
      allowedOrigins: [UI_ORIGIN],
    });
  });

  afterAll(async () => {
    await server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function post(
    path: string,
    body: string | Buffer | Readable,
    headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
    method: 'POST' | 'OPTIONS' | 'GET' = 'POST',
  ): Promise<Answer> {
    const response = await request(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(method === 'POST' ? { body } : {}),
    });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }

  const bodyOf = (payloads: Payload[]) => JSON.stringify({ payloads: payloads.map(payloadToJson) });

  async function encrypted(...values: unknown[]): Promise<Payload[]> {
    return await codec.encode(values.map((value) => defaultPayloadConverter.toPayload(value)));
  }

  function decodedValues(answer: Answer): unknown[] {
    expect(answer.status).toBe(200);
    const { payloads } = JSON.parse(answer.text) as { payloads: PayloadJson[] };
    return payloads.map((json) => defaultPayloadConverter.fromPayload(payloadFromJson(json)));
  }

  it('decodes what it encoded (CLI: no Origin, bearer token)', async () => {
    const plain = [defaultPayloadConverter.toPayload({ step: 'document' })];
    const encodedAnswer = await post('/encode', bodyOf(plain));
    expect(encodedAnswer.status).toBe(200);
    expect(encodedAnswer.text).not.toContain(Buffer.from('document').toString('base64'));
    const { payloads } = JSON.parse(encodedAnswer.text) as { payloads: PayloadJson[] };
    const decoded = await codec.decode(payloads.map(payloadFromJson));
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
      { step: 'document' },
    ]);
    expect(decodedValues(await post('/decode', encodedAnswer.text))).toEqual([{ step: 'document' }]);
  });

  // Proto3 JSON leaves out empty fields: the Temporal CLI sends `{}` for an event without payloads.
  it('answers an empty batch, as proto3 JSON writes it, with an empty batch', async () => {
    for (const path of ['/decode', '/encode']) {
      const answer = await post(path, '{}');
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ payloads: [] });
    }
  });

  it('answers 401 without a token, naming no part', async () => {
    const answer = await post('/decode', bodyOf(await encrypted('x')), {});
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text)).toEqual({ title: 'unauthorized' });
  });

  it('answers 401 to a wrong bearer token and a wrong token in the path', async () => {
    const body = bodyOf(await encrypted('x'));
    const wrongBearer = await post('/decode', body, { authorization: `Bearer ${TOKEN}x` });
    const wrongPath = await post(`/t/${TOKEN}x/decode`, body, {});
    expect([wrongBearer.status, wrongPath.status]).toEqual([401, 401]);
    expect(wrongPath.text).toBe(wrongBearer.text);
  });

  it('accepts the token as path prefix (web UI), even beside another bearer token', async () => {
    const body = bodyOf(await encrypted('via path'));
    expect(server.endpoint(true)).toBe(`${server.url}/t/${TOKEN}`);
    expect(decodedValues(await post(`/t/${TOKEN}/decode`, body, {}))).toEqual(['via path']);
    const withUserToken = await post(`/t/${TOKEN}/decode`, body, { authorization: 'Bearer user-oidc-jwt' });
    expect(decodedValues(withUserToken)).toEqual(['via path']);
  });

  it('gives an allowed origin CORS headers and answers its preflight 204', async () => {
    const preflight = await post(`/t/${TOKEN}/decode`, '', { origin: UI_ORIGIN }, 'OPTIONS');
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': UI_ORIGIN,
      vary: 'Origin',
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'Content-Type, X-Namespace, Authorization',
      'access-control-allow-credentials': 'true',
    });
    const answer = await post(`/t/${TOKEN}/decode`, bodyOf(await encrypted(1)), {
      origin: UI_ORIGIN,
      'x-namespace': 'default',
    });
    expect(answer.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    expect(decodedValues(answer)).toEqual([1]);
  });

  it('refuses another origin with 403 and no CORS headers, preflight included', async () => {
    const origin = 'http://evil.example';
    const preflight = await post('/decode', '', { origin }, 'OPTIONS');
    const answer = await post('/decode', bodyOf(await encrypted(1)), {
      origin,
      authorization: `Bearer ${TOKEN}`,
    });
    for (const refused of [preflight, answer]) {
      expect(refused.status).toBe(403);
      expect(Object.keys(refused.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('answers 404 to an unknown path and 405 to another method', async () => {
    expect((await post('/metrics', '{}')).status).toBe(404);
    const answer = await post('/decode', '', { authorization: `Bearer ${TOKEN}` }, 'GET');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST, OPTIONS');
  });

  it.each([
    ['not JSON', '{"payloads": [Lovelace', 'the body is not JSON'],
    ['no payloads', '{"items":[]}', 'payloads'],
    ['data not base64', '{"payloads":[{"data":"Love lace!"}]}', 'payloads[0].data: must be base64'],
  ])('answers 400 to a malformed body (%s), never echoing it', async (_, body, detail) => {
    const answer = await post('/decode', body);
    expect(answer.status).toBe(400);
    expect((JSON.parse(answer.text) as { detail: string }).detail).toContain(detail);
    expect(answer.text).not.toContain('Love');
  });

  it('answers 413 past 16 MiB, declared or streamed', async () => {
    const big = Buffer.alloc(16 * 1024 * 1024 + 1, 0x20);
    expect((await post('/decode', big)).status).toBe(413);
    const streamed = Readable.from(
      (function* () {
        for (let chunk = 0; chunk < 17; chunk++) yield Buffer.alloc(1024 * 1024, 0x20);
      })(),
    );
    expect((await post('/decode', streamed)).status).toBe(413);
  });

  it('opens the sealed values inside a JSON payload, at any depth', async () => {
    const keyId = await dataKeys.create();
    const person = { givenName: 'Ada', familyName: 'Lovelace' };
    const sealed = await dataKeys.seal(keyId, person);
    const body = bodyOf(
      await encrypted({ reference: 'ref-1', person: sealed, history: [{ names: [sealed] }] }),
    );
    expect(decodedValues(await post('/decode', body))).toEqual([
      { reference: 'ref-1', person, history: [{ names: [person] }] },
    ]);
  });

  it('under /sealed decodes everything but the person, sealed or redacted, with the token in the path too', async () => {
    const [live, gone] = [await dataKeys.create(), await dataKeys.create()];
    const body = bodyOf(
      await encrypted(
        { reference: 'ref-2', person: await dataKeys.seal(live, { familyName: 'Lovelace' }) },
        { person: await dataKeys.seal(gone, { familyName: 'Lovelace' }) },
      ),
    );
    await dataKeys.destroy(gone);
    for (const path of ['/sealed/decode', `/t/${TOKEN}/sealed/decode`]) {
      const answer = await post(path, body, path.startsWith('/t/') ? {} : undefined);
      expect(decodedValues(answer)).toEqual([
        { reference: 'ref-2', person: { sealed: SEALED_TEXT, keyId: live } },
        { person: { redacted: REDACTED_TEXT, keyId: gone } },
      ]);
      const { payloads } = JSON.parse(answer.text) as { payloads: PayloadJson[] };
      const texts = payloads.map(({ data }) => Buffer.from(data ?? '', 'base64').toString());
      expect(texts.filter((text) => text.includes('Lovelace'))).toEqual([]);
    }
    expect((await post('/sealed/decode', body, {})).status).toBe(401);
  });

  it('after the redaction, shows the redacted marker and the person nowhere', async () => {
    const keyId = await dataKeys.create();
    const body = bodyOf(await encrypted({ person: await dataKeys.seal(keyId, { familyName: 'Lovelace' }) }));
    await dataKeys.destroy(keyId);
    const answer = await post('/decode', body);
    expect(decodedValues(answer)).toEqual([{ person: { redacted: REDACTED_TEXT, keyId } }]);
    const { payloads } = JSON.parse(answer.text) as { payloads: PayloadJson[] };
    const texts = [answer.text, ...payloads.map(({ data }) => Buffer.from(data ?? '', 'base64').toString())];
    expect(texts.filter((text) => text.includes('Lovelace'))).toEqual([]);
  });

  it('never shows a key-encryption key of the keyring (its own payloads hold them)', async () => {
    const entry = newKeyringEntry(Date.now());
    const body = bodyOf(await encrypted({ keys: [entry], refreshMs: 30_000 }));
    const answer = await post('/decode', body);
    expect(decodedValues(answer)).toEqual([
      { keys: [{ id: entry.id, key: KEYRING_KEY_TEXT }], refreshMs: 30_000 },
    ]);
    expect(answer.text).not.toContain(entry.key);
  });

  it('marks a value sealed under a key this store never had as unreadable', async () => {
    const elsewhere = await openLocalStore(join(dir, 'elsewhere'));
    const otherKeys = new DataKeys(elsewhere.dataKeys, keyring);
    const keyId = await otherKeys.create();
    const body = bodyOf(await encrypted(await otherKeys.seal(keyId, 'Lovelace')));
    const [value] = decodedValues(await post('/decode', body));
    expect(value).toEqual({ unreadable: expect.stringContaining(keyId) as unknown, keyId });
  });

  it('marks a payload under an unknown payload key unreadable, and decodes the rest of its batch', async () => {
    const [foreign] = await new AesGcmPayloadCodec(parseEncryptionKeys(newEncryptionKeyEntry('k0'))).encode([
      defaultPayloadConverter.toPayload('Lovelace'),
    ]);
    const [before, after] = await encrypted('before', 'after');
    const body = bodyOf([before, foreign, after] as Payload[]);
    expect(decodedValues(await post('/decode', body))).toEqual([
      'before',
      { unreadable: "payload encrypted with key 'k0', which IDV_ENCRYPTION_KEYS does not hold" },
      'after',
    ]);
  });

  it('refuses to start with a token shorter than 32 characters', async () => {
    await expect(
      startCodecServer({ encryptionKeys: keys, keyring, store, token: 'short', allowedOrigins: [] }),
    ).rejects.toThrow('at least 32 characters');
  });
});

describe('idv codec-server', () => {
  it('exits 1 with one line on how to make a token when IDV_CODEC_TOKEN is not set', async () => {
    await expect(codecServerCommand.run({ values: {}, positionals: [] }, captureIo({}))).rejects.toThrow(
      'IDV_CODEC_TOKEN is not set: the codec server needs a shared token, e.g. export IDV_CODEC_TOKEN=$(openssl rand -hex 32)',
    );
  });

  it('serves until asked to stop, printing the endpoint but not the token', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-codec-cli-'));
    let stop: (signal: string) => void = () => {};
    const io = captureIo(
      {
        IDV_CODEC_TOKEN: TOKEN,
        IDV_ENCRYPTION_KEYS: keyEntry,
        IDV_DATA_DIR: dataDir,
        // The data keys are wrapped under the keyring's keys, which Temporal holds.
        TEMPORAL_ADDRESS: harnessValue(harnessEnv.temporalAddress),
      },
      new Promise((resolve) => (stop = resolve)),
    );
    const running = codecServerCommand.run({ values: { port: '0' }, positionals: [] }, io);
    while (!io.err().includes('listening on')) await new Promise((resolve) => setTimeout(resolve, 10));
    const endpoint = /listening on (\S+),/.exec(io.err())?.[1] ?? '';
    const response = await request(`${endpoint}/decode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ payloads: (await encryptedPayloads('cli')).map(payloadToJson) }),
    });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    expect(io.err()).toContain(`--codec-endpoint ${endpoint} --codec-auth "Bearer $IDV_CODEC_TOKEN"`);
    expect(io.err()).not.toContain(TOKEN);
    stop('SIGINT');
    await expect(running).resolves.toBe(0);
    await rm(dataDir, { recursive: true, force: true });
  });

  async function encryptedPayloads(value: unknown): Promise<Payload[]> {
    return await codec.encode([defaultPayloadConverter.toPayload(value)]);
  }
});
