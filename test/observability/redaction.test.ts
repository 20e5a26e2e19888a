import { CENSORED, redactedFields, redactValue, scrub } from '../../workers/log/redaction';

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcd';

describe('redaction rules: strings', () => {
  it("replaces the receiver's path token, keeping the tenant", () => {
    expect(scrub(`POST http://127.0.0.1:8234/agent/tenant-1/${TOKEN} refused`)).toBe(
      'POST http://127.0.0.1:8234/agent/tenant-1/[redacted] refused',
    );
    expect(scrub(`/agent/t/${TOKEN}`)).toBe('/agent/t/[redacted]');
  });

  it("replaces the token of a receiver's return URL, keeping the reference", () => {
    expect(scrub(`redirect to http://127.0.0.1:8234/return/order-4711/${TOKEN}?resultsAccessKey=abc`)).toBe(
      'redirect to http://127.0.0.1:8234/return/order-4711/[redacted]?[redacted]',
    );
    expect(scrub(`/return/order-4711/${TOKEN}`)).toBe('/return/order-4711/[redacted]');
  });

  it("replaces the codec server's path token", () => {
    expect(scrub(`endpoint http://127.0.0.1:7999/t/${TOKEN}/decode`)).toBe(
      'endpoint http://127.0.0.1:7999/t/[redacted]/decode',
    );
  });

  it('replaces query strings of URLs, of paths, and on their own', () => {
    expect(scrub('back to https://shop.example/return/order-1?resultsAccessKey=abc&x=1 then')).toBe(
      'back to https://shop.example/return/order-1?[redacted] then',
    );
    expect(scrub('GET /return/order-1?resultsAccessKey=abc')).toBe('GET /return/order-1?[redacted]');
    expect(scrub('signed with ?key=s3cr3t&expires=1')).toBe('signed with ?[redacted]');
  });

  it('replaces passwords in URLs, bearer tokens and payload keys', () => {
    expect(scrub('store postgres://idv:s3cret@db:5432/idv down')).toBe(
      'store postgres://idv:[redacted]@db:5432/idv down',
    );
    expect(scrub('header Bearer eyJhbGciOi.abc-def')).toBe('header Bearer [redacted]');
    expect(scrub(`keys k1:${Buffer.alloc(32, 9).toString('base64')}`)).toBe('keys k1:[redacted]');
  });

  it('keeps a JSON line valid when a scrubbed value sits in escaped quotes', () => {
    const line = JSON.stringify({ msg: `see "http://h/agent/t/${TOKEN}?k=1" now` });
    expect(JSON.parse(scrub(line))).toEqual({ msg: 'see "http://h/agent/t/[redacted]?[redacted]" now' });
  });

  it('leaves ids, statuses and plain text alone', () => {
    const text =
      'session 3f6c2a1e-8d4b-4c55-9a0e-1b2c3d4e5f60 of idv-order-4711 failed: expired (gRPC status 14)';
    expect(scrub(text)).toBe(text);
  });
});

describe('redaction rules: fields', () => {
  it('censors every listed field at any depth', () => {
    const listed = Object.fromEntries(redactedFields.map((field) => [field, { leaked: 'value' }]));
    const redacted = redactValue({ a: { b: { c: listed } } }) as { a: { b: { c: Record<string, unknown> } } };
    expect(Object.values(redacted.a.b.c)).toEqual(redactedFields.map(() => CENSORED));
  });

  it('censors a field however it is spelled', () => {
    expect(
      redactValue({
        api_key: 'k',
        'x-api-key': 'k',
        Authorization: 'Basic a',
        results_access_key: 'r',
        ID_TOKEN: 't',
      }),
    ).toEqual({
      api_key: CENSORED,
      'x-api-key': CENSORED,
      Authorization: CENSORED,
      results_access_key: CENSORED,
      ID_TOKEN: CENSORED,
    });
  });

  it("censors the person's data nested in a start input and an outcome", () => {
    const redacted = redactValue({
      workflow: {
        args: [{ reference: 'order-1', providerInput: { personalCode: '39001010000' } }],
        outcome: { status: 'succeeded', sessionId: 's-1', identity: { person: { givenName: 'Ada' } } },
      },
    });
    expect(redacted).toEqual({
      workflow: {
        args: [{ reference: 'order-1', providerInput: CENSORED }],
        outcome: { status: 'succeeded', sessionId: 's-1', identity: CENSORED },
      },
    });
  });

  it('scrubs strings in nested objects and arrays', () => {
    expect(redactValue({ request: { urls: [`http://h/agent/t/${TOKEN}`, 'http://h/x?key=1'] } })).toEqual({
      request: { urls: ['http://h/agent/t/[redacted]', 'http://h/x?[redacted]'] },
    });
  });

  it('keeps of an error its type, scrubbed message, code and failure type: no cause, details or stack', () => {
    const failure = Object.assign(
      new Error(`POST http://h/agent/t/${TOKEN} failed`, { cause: new Error('Ada') }),
      {
        code: 'ECONNRESET',
        type: 'RetryableApiError',
        details: ['Ada Lovelace'],
      },
    );
    expect(redactValue({ nested: { failure } })).toEqual({
      nested: {
        failure: {
          type: 'Error',
          message: 'POST http://h/agent/t/[redacted] failed',
          code: 'ECONNRESET',
          failureType: 'RetryableApiError',
        },
      },
    });
  });

  it("adds an error's scrubbed stack when asked", () => {
    const fields = redactValue(new Error(`at /agent/t/${TOKEN}`), { stacks: true }) as { stack: string };
    expect(fields.stack).toContain('redaction.test.ts');
    expect(fields.stack).not.toContain(TOKEN);
  });

  it('logs bytes as their length only, and survives cycles and deep nesting', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { secretless: 'bottom' };
    for (let level = 0; level < 12; level += 1) deep = { down: deep };
    expect(redactValue({ key: Buffer.alloc(32, 1) })).toEqual({ key: '[32 bytes]' });
    expect(redactValue(cyclic)).toEqual({ name: 'a', self: '[circular]' });
    expect(JSON.stringify(redactValue(deep))).toContain('[nested]');
  });
});
