import { request } from 'undici';
import { type Emulator, startEmulator, type EmulatorOptions } from '../../emulator/emulator';
import { type WireResponse } from './openapi-validator';

/** What a raw call sends. */
export interface CallOptions {
  /** API key; `null` sends no Authorization header. @default the first identity key */
  key?: string | null;
  body?: unknown;
  /** Raw body text instead of JSON. */
  rawBody?: string;
  /** @default 'application/json' when a body is sent */
  contentType?: string;
}

/** A raw response with its JSON body and headers. */
export interface RawResponse extends WireResponse {
  headers: Record<string, string | string[] | undefined>;
  // Loosely typed on purpose: tests read fields and the contract checks the shape.
  json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Sends one request to the emulator over HTTP, bypassing our API client. */
export async function call(
  emulator: Emulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<RawResponse> {
  const key = options.key === undefined ? emulator.apiKeys[0] : options.key;
  const hasBody = options.body !== undefined || options.rawBody !== undefined;
  const response = await request(`${emulator.baseUrl}${path}`, {
    method: method as 'GET',
    headers: {
      ...(key === null || key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(hasBody ? { 'content-type': options.contentType ?? 'application/json' } : {}),
    },
    ...(hasBody ? { body: options.rawBody ?? JSON.stringify(options.body) } : {}),
  });
  const text = await response.body.text();
  const contentType = response.headers['content-type'] as string | undefined;
  const body: unknown = text === '' ? undefined : contentType?.includes('json') ? JSON.parse(text) : text;
  return {
    status: response.statusCode,
    contentType,
    body,
    headers: response.headers,
    json: (body ?? {}) as Record<string, unknown>,
  };
}

/** Starts an emulator per test file and stops it afterwards. */
export function useEmulator(options: EmulatorOptions = {}): () => Emulator {
  let emulator: Emulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 42, ...options });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  return () => {
    if (!emulator) throw new Error('useEmulator: the emulator is not running');
    return emulator;
  };
}

/** Body of a test-provider session that succeeds. */
export function testProviderSession(profileId: string, identityCode = '123456') {
  return {
    verificationProfileId: profileId,
    provider: 'trinsic-test-database-lookup',
    capabilities: ['PollResult'],
    providerInput: {
      'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode },
    },
  };
}
