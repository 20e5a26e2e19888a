import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Payload } from '@temporalio/common';
import { type IdvStore } from '../stores/idv-store';
import { AesGcmPayloadCodec, PayloadDecryptionError } from './aes-gcm-codec';
import { CodecBodyError, parseCodecBody, payloadToJson } from './codec-payload-json';
import { DataKeys } from './data-keys';
import { type Keyring } from './keyring';
import { type EncryptionKey } from './encryption-keys';
import { openSealedValues, type SealedView } from './open-sealed-values';
import { readBody } from '../http/read-body';
import { closeConnection, sendJson } from '../http/respond';
import { decodeSegment } from '../http/path-segment';

/** Options of {@link startCodecServer}. */
export interface CodecServerOptions {
  /** The payload keys of the workers, newest first. */
  encryptionKeys: readonly EncryptionKey[];
  /** The deployment's keyring: the data keys in the store are wrapped under its keys. */
  keyring: Keyring;
  /** The store holding the verifications' data keys. */
  store: IdvStore;
  /** Shared secret of the callers (at least 32 characters): `Authorization: Bearer …` or the path `/t/<token>/`. */
  token: string;
  /** Browser origins allowed to call, e.g. the Temporal web UI's `http://localhost:8233`. */
  allowedOrigins: readonly string[];
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** A running codec server. */
export interface CodecServer {
  /** Base address, e.g. `http://127.0.0.1:8888`. */
  url: string;
  /** What to configure as codec endpoint: the base address, or with the token as path prefix (web UI). */
  endpoint(withTokenInPath: boolean): string;
  /**
   * Replaces the browser origins allowed to call: the embedded stack learns its web UI's port only
   * once the UI runs, and the UI needs this server's address to start.
   */
  allowOrigins(origins: readonly string[]): void;
  /** Stops accepting and closes every connection. */
  close(): Promise<void>;
}

/** Thrown when the codec server cannot start with its options (short token, bad origin). */
export class CodecServerConfigError extends Error {
  override readonly name = 'CodecServerConfigError';
}

const MIN_TOKEN_LENGTH = 32;
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const TOO_LARGE = { title: 'payload too large', detail: `at most ${MAX_BODY_BYTES} bytes` };
/** `[/t/<token>][/sealed]/(encode|decode)`: `/sealed` decodes without opening the person's data. */
const ROUTE = /^(?:\/t\/([^/]+))?(\/sealed)?\/(encode|decode)$/;
const CORS_HEADERS = {
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, X-Namespace, Authorization',
  'Access-Control-Allow-Credentials': 'true',
};

interface Context {
  codec: AesGcmPayloadCodec;
  dataKeys: DataKeys;
  tokenDigest: Buffer;
  origins: ReadonlySet<string>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Starts the codec server of the Temporal web UI and CLI: `/encode` and `/decode` with the
 * workers' payload keys; decoding also opens the sealed personal data of each JSON payload, or
 * marks it redacted once its data key is destroyed. Under `/sealed` it decodes everything but the
 * person's data, which stays marked sealed (for the CLI of an operator who needs statuses and
 * summaries, not the person). It logs nothing: payloads are personal data.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const { token, host = '127.0.0.1', port = 0 } = options;
  if (token.length < MIN_TOKEN_LENGTH)
    throw new CodecServerConfigError(
      `the codec server token must be at least ${MIN_TOKEN_LENGTH} characters (make one with \`openssl rand -hex 32\`)`,
    );
  const context: Context = {
    codec: new AesGcmPayloadCodec(options.encryptionKeys),
    dataKeys: new DataKeys(options.store.dataKeys, options.keyring),
    tokenDigest: sha256(token),
    origins: new Set(options.allowedOrigins.map(originOf)),
  };
  const server = createServer((request, response) => {
    handle(request, response, context).catch(() => {
      if (!response.headersSent)
        sendJson(response, 500, { title: 'internal error' }, { Connection: 'close' });
      else response.destroy();
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  return {
    url,
    endpoint: (withTokenInPath) => (withTokenInPath ? `${url}/t/${encodeURIComponent(token)}` : url),
    allowOrigins: (origins) => {
      context.origins = new Set(origins.map(originOf));
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function originOf(value: string): string {
  let origin: URL;
  try {
    origin = new URL(value);
  } catch {
    throw new CodecServerConfigError(`allowed origin '${value}' is not a URL`);
  }
  if (origin.protocol !== 'http:' && origin.protocol !== 'https:')
    throw new CodecServerConfigError(`allowed origin '${value}' must be http(s)`);
  return origin.origin;
}

async function handle(request: IncomingMessage, response: ServerResponse, context: Context): Promise<void> {
  const early = closeConnection;
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (!context.origins.has(origin)) return sendJson(response, 403, { title: 'origin not allowed' }, early);
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Vary', 'Origin');
    for (const [name, value] of Object.entries(CORS_HEADERS)) response.setHeader(name, value);
  }
  const route = ROUTE.exec((request.url ?? '/').split('?', 1)[0] ?? '/');
  if (!route) return sendJson(response, 404, { title: 'not found' }, early);
  if (request.method === 'OPTIONS') return sendJson(response, 204, undefined, { Allow: 'POST, OPTIONS' });
  if (request.method !== 'POST')
    return sendJson(response, 405, { title: 'method not allowed' }, { ...early, Allow: 'POST, OPTIONS' });
  if (!authorized(request, route[1], context.tokenDigest))
    return sendJson(response, 401, { title: 'unauthorized' }, { ...early, 'WWW-Authenticate': 'Bearer' });
  const body = await readBody(request, MAX_BODY_BYTES);
  if (!body) return sendJson(response, 413, TOO_LARGE, early);
  let payloads: Payload[];
  try {
    payloads = parseCodecBody(body);
  } catch (error) {
    if (error instanceof CodecBodyError)
      return sendJson(response, 400, { title: 'bad request', detail: error.message });
    throw error;
  }
  const answer =
    route[3] === 'encode'
      ? await context.codec.encode(payloads)
      : await decode(payloads, context, route[2] ? 'sealed' : 'open');
  sendJson(response, 200, { payloads: answer.map(payloadToJson) });
}

/** Either credential may be the token (the UI may send its own access token as bearer). */
function authorized(request: IncomingMessage, pathToken: string | undefined, tokenDigest: Buffer): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  const candidates = [pathToken === undefined ? undefined : decodeSegment(pathToken), bearer];
  return candidates
    .map((candidate) => candidate !== undefined && timingSafeEqual(sha256(candidate), tokenDigest))
    .includes(true);
}

/** Decrypts one by one, so a payload under a key this process lacks does not fail its batch. */
async function decode(payloads: Payload[], context: Context, view: SealedView): Promise<Payload[]> {
  const decoded: Payload[] = [];
  for (const payload of payloads) {
    let plain: Payload;
    try {
      plain = (await context.codec.decode([payload]))[0] ?? payload;
    } catch (error) {
      if (!(error instanceof PayloadDecryptionError)) throw error;
      plain = jsonPayload({ unreadable: error.message });
    }
    decoded.push(await openSealedValues(plain, context.dataKeys, view));
  }
  return decoded;
}

function jsonPayload(value: unknown): Payload {
  return { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) };
}
