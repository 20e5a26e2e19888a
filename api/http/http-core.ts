import { Agent, type Dispatcher } from 'undici';
import { type ZodType } from 'zod';
import { errorFromResponse } from './error-mapping';
import { AnswerShapeError, jsonTokens, type JsonToken } from './json-tokens';
import {
  MalformedResponseError,
  NetworkError,
  OverBudgetError,
  ResponseTooLargeError,
  TimeoutError,
} from './errors';
import { type CallBudget, type CallPriority } from './call-budget';
import { parseRetryAfter } from './retry-after';

/** Options of {@link HttpCore}; defaults are resolved in its constructor only. */
export interface HttpCoreOptions {
  /** Base address, e.g. `https://api.trinsic.id`; a path prefix is kept. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never logged or put in messages. */
  apiKey: string;
  /** Transport; injected in tests (undici `MockAgent`). @default a keep-alive `Agent` owned by the core */
  dispatcher?: Dispatcher;
  /** @default 10_000 */
  connectTimeoutMs?: number;
  /** Time to wait for the response headers. @default 30_000 */
  headersTimeoutMs?: number;
  /** Time allowed between two chunks of the body. @default 30_000 */
  bodyTimeoutMs?: number;
  /**
   * Time allowed for the whole answer of a call read whole (not a streamed one), from its sending
   * to its body's end: a body that drips in never trips `bodyTimeoutMs`. Under a poll attempt's
   * minute, with its wait for a turn. @default 45_000
   */
  answerTimeoutMs?: number;
  /** Largest answer body read (success or error); a larger one fails `ResponseTooLargeError`. @default 1 MiB */
  maxBodyBytes?: number;
  /** @default 'idv-temporal' */
  userAgent?: string;
  /**
   * Told of every request once its status is known (or it failed without one): the operation and
   * the status or failure kind only, never a body or a path (paths carry session ids). For
   * metrics; it must not throw.
   */
  onCall?: (call: ApiCall) => void;
  /**
   * The process's limit on calls per second, shared by every client given it; each request
   * waits for its turn (see {@link CallOptions.priority}), and 429s tighten it (see `OVERLOAD_SHARE`). @default none
   */
  budget?: CallBudget;
}

/** What {@link HttpCoreOptions.onCall} learns of one request. */
export interface ApiCall {
  /** Operation name of the interface document, e.g. `GetSession`. */
  operation: string;
  /** The HTTP status, or `network` / `timeout` / `aborted` when there was none. */
  status: number | 'network' | 'timeout' | 'aborted';
}

/** One request of an operation. */
export interface RequestSpec<T> {
  /** Operation name of the interface document; appears in errors. */
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below the base address, already encoded (see `path`). */
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  /** Schema of the success body; without it the body is discarded. */
  schema?: ZodType<T>;
  /**
   * The success body carries personal data or secrets (identity data, attachments, the results
   * access key): when it cannot be understood, none of it is kept in the error.
   */
  privateBody?: boolean;
  /** This request's own body cap (an attachment's, for example); the core's default otherwise. */
  maxBodyBytes?: number;
  /** Its turn under the budget. @default 'first' */
  priority?: CallPriority;
  /** The longest wait for a turn; past it the call fails `OverBudgetError` unsent. @default FIRST_CALL_WAIT_MS */
  budgetWaitMs?: number;
}

/**
 * How long a call waits for its turn under the budget unless told otherwise: well inside an
 * activity attempt's minute, so a call never starts after the attempt that made it was given up.
 */
export const FIRST_CALL_WAIT_MS = 20_000;

/** What sending a request needs, whatever reads its answer. */
type SendSpec = Pick<
  RequestSpec<unknown>,
  'operation' | 'method' | 'path' | 'body' | 'signal' | 'priority' | 'budgetWaitMs'
>;

/** One request whose success body is read as a stream of JSON tokens. */
export interface TokenRequestSpec<T> extends SendSpec {
  /** Largest body read. @default the core's cap */
  maxBodyBytes?: number;
  /** Reads the answer; the tokens end with the body. */
  read(tokens: AsyncIterator<JsonToken>): Promise<T>;
}

/** Per-call options every operation accepts. */
export interface CallOptions {
  /** Aborts the request (an activity passes its cancellation signal). */
  signal?: AbortSignal;
  /** Its turn under the core's budget: polls give way to everything else. @default 'first' */
  priority?: CallPriority;
  /** The longest wait for a turn under the budget; past it the call fails `OverBudgetError` unsent. @default FIRST_CALL_WAIT_MS */
  budgetWaitMs?: number;
}

const SUCCESS_TYPES = /^(application\/json|text\/json|text\/plain|application\/[\w.+-]*\+json)\b/i;
const RAW_BODY_LIMIT = 2048;
/** How much of a body nobody reads is drained, so that its connection is kept (undici's default). */
const DUMPED_BODY_LIMIT = 128 * 1024;

/**
 * The request core shared by every API client: JSON in and out over a keep-alive undici
 * dispatcher, explicit timeouts, bodies always consumed, answers parsed with zod and every
 * failure turned into a typed {@link ApiError}. It never retries: Temporal does.
 */
export class HttpCore {
  readonly #origin: string;
  readonly #prefix: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #headers: Record<string, string>;
  readonly #headersTimeout: number;
  readonly #bodyTimeout: number;
  readonly #answerTimeout: number;
  readonly #maxBodyBytes: number;
  readonly #onCall: ((call: ApiCall) => void) | undefined;
  readonly #budget: CallBudget | undefined;

  constructor(options: HttpCoreOptions) {
    this.#onCall = options.onCall;
    this.#budget = options.budget;
    const base = new URL(options.baseUrl);
    this.#origin = base.origin;
    this.#prefix = base.pathname.replace(/\/+$/, '');
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        connect: { timeout: options.connectTimeoutMs ?? 10_000 },
        keepAliveTimeout: 30_000,
        connections: 64,
      });
    this.#headersTimeout = options.headersTimeoutMs ?? 30_000;
    this.#bodyTimeout = options.bodyTimeoutMs ?? 30_000;
    this.#answerTimeout = options.answerTimeoutMs ?? 45_000;
    this.#maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
    this.#headers = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': options.userAgent ?? 'idv-temporal',
    };
  }

  /** Sends one request and resolves to the parsed success body (undefined without a schema). */
  async request<T>(spec: RequestSpec<T>): Promise<T> {
    const { response, contentType, deadline } = await this.#send(spec, this.#answerTimeout);
    if (!spec.schema) {
      // Its status was the answer: a body that drips in is dropped at the deadline.
      await response.body.dump({ limit: DUMPED_BODY_LIMIT, signal: deadline }).catch(() => undefined);
      return undefined as T;
    }
    const text = await readText(spec, response, 'body', spec.maxBodyBytes ?? this.#maxBodyBytes, deadline);
    return parseSuccess(
      spec.operation,
      spec.schema,
      response.statusCode,
      contentType,
      text,
      spec.privateBody,
    );
  }

  /**
   * Sends one request and hands its JSON success body to `spec.read` as tokens while it arrives,
   * so a large answer (an attachment) never sits whole in memory. The body is bounded like any
   * other; its text is never kept in errors. A token stream that is not JSON fails
   * `MalformedResponseError`; `read` throws {@link AnswerShapeError} for JSON of the wrong shape.
   */
  async requestTokens<T>(spec: TokenRequestSpec<T>): Promise<T> {
    const { response, contentType } = await this.#send(spec);
    const { operation } = spec;
    const status = response.statusCode;
    if (!contentType || !SUCCESS_TYPES.test(contentType)) {
      response.body.destroy();
      const reason = `content type ${contentType ?? '(none)'} is not JSON`;
      throw new MalformedResponseError({ operation, status, reason, retryable: true });
    }
    const maxBytes = spec.maxBodyBytes ?? this.#maxBodyBytes;
    const tooLarge = () => new ResponseTooLargeError({ operation, status, maxBytes });
    if (declaredLength(response) > maxBytes) {
      response.body.destroy();
      throw tooLarge();
    }
    const tokens = jsonTokens(response.body, {
      maxBytes,
      tooLarge,
      transportError: (error) => transportError(operation, error, spec.signal, { status, what: 'body' }),
      malformed: (cause) =>
        new MalformedResponseError({
          operation,
          status,
          cause,
          reason: 'invalid or truncated JSON',
          retryable: true,
        }),
    });
    try {
      return await spec.read(tokens);
    } catch (error) {
      if (error instanceof AnswerShapeError)
        throw new MalformedResponseError({ operation, status, reason: error.message, retryable: false });
      throw error;
    } finally {
      response.body.destroy();
    }
  }

  /**
   * Sends the request; an error status becomes its typed error, a transport failure too. With
   * `answerTimeoutMs`, the answer is aborted that long after its turn came (see `deadline`).
   */
  async #send(
    spec: SendSpec,
    answerTimeoutMs?: number,
  ): Promise<{ response: Dispatcher.ResponseData; contentType?: string; deadline?: AbortSignal }> {
    let sentAt: number | undefined;
    if (this.#budget) {
      const maxWaitMs = spec.budgetWaitMs ?? FIRST_CALL_WAIT_MS;
      // A person's calls are shared fairly by their target (the session's path).
      const turn = await this.#budget.acquire(spec.priority ?? 'first', {
        signal: spec.signal,
        maxWaitMs,
        key: spec.path,
      });
      // Retried after the pause that refused it, if any: not three times into it.
      if (!turn)
        throw new OverBudgetError({
          operation: spec.operation,
          retryAfterMs: Math.max(1_000, this.#budget.pausedForMs()),
        });
      sentAt = this.#budget.now();
    }
    const deadline = answerTimeoutMs === undefined ? undefined : AbortSignal.timeout(answerTimeoutMs);
    const signal =
      deadline && spec.signal ? AbortSignal.any([spec.signal, deadline]) : (deadline ?? spec.signal);
    const hasBody = spec.body !== undefined;
    let response: Dispatcher.ResponseData;
    try {
      response = await this.#dispatcher.request({
        origin: this.#origin,
        path: this.#prefix + spec.path,
        method: spec.method,
        headers: hasBody ? { ...this.#headers, 'content-type': 'application/json' } : this.#headers,
        ...(hasBody ? { body: JSON.stringify(spec.body) } : {}),
        signal,
        headersTimeout: this.#headersTimeout,
        bodyTimeout: this.#bodyTimeout,
      });
    } catch (error) {
      const failure = transportError(spec.operation, error, spec.signal, { deadline });
      const kind = spec.signal?.aborted ? 'aborted' : failure instanceof TimeoutError ? 'timeout' : 'network';
      this.#onCall?.({ operation: spec.operation, status: kind });
      throw failure;
    }
    this.#onCall?.({ operation: spec.operation, status: response.statusCode });
    if (response.statusCode === 429)
      this.#budget?.throttled(parseRetryAfter(response.headers['retry-after']), sentAt);
    const contentType = header(response.headers['content-type']);
    // Only a 2xx is the service's answer: undici follows no redirect, and a 3xx (a gateway
    // failing over, a login page) carried nothing out, though it is no error status.
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const bodyText = await readText(spec, response, 'error body', this.#maxBodyBytes, deadline);
      throw errorFromResponse({
        operation: spec.operation,
        status: response.statusCode,
        contentType,
        retryAfter: response.headers['retry-after'],
        bodyText,
      });
    }
    return {
      response,
      ...(contentType === undefined ? {} : { contentType }),
      ...(deadline ? { deadline } : {}),
    };
  }

  /** The budget its requests wait on, if any. */
  get budget(): CallBudget | undefined {
    return this.#budget;
  }

  /** Closes the keep-alive connections if the core created its own dispatcher. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}

function declaredLength(response: Dispatcher.ResponseData): number {
  const declared = Number(header(response.headers['content-length']));
  return Number.isFinite(declared) ? declared : Number.NaN;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Reads a body up to `maxBytes`; past that the connection's body is dropped and the answer refused. */
async function readText(
  spec: SendSpec,
  response: Dispatcher.ResponseData,
  what: string,
  maxBytes: number,
  deadline?: AbortSignal,
): Promise<string> {
  const tooLarge = () =>
    new ResponseTooLargeError({ operation: spec.operation, status: response.statusCode, maxBytes });
  if (declaredLength(response) > maxBytes) {
    response.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBytes) {
        response.body.destroy();
        throw tooLarge();
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof ResponseTooLargeError) throw error;
    throw transportError(spec.operation, error, spec.signal, { status: response.statusCode, what, deadline });
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function parseSuccess<T>(
  operation: string,
  schema: ZodType<T>,
  status: number,
  contentType: string | undefined,
  text: string,
  privateBody = false,
): T {
  const rawBody = privateBody ? undefined : text.slice(0, RAW_BODY_LIMIT);
  if (!contentType || !SUCCESS_TYPES.test(contentType)) {
    const reason = `content type ${contentType ?? '(none)'} is not JSON`;
    throw new MalformedResponseError({ operation, status, rawBody, reason, retryable: true });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    // JSON.parse quotes the text in its message: a private answer keeps neither.
    throw new MalformedResponseError({
      operation,
      status,
      rawBody,
      ...(privateBody ? {} : { cause }),
      reason: 'invalid or truncated JSON',
      retryable: true,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`,
    );
    const reason = `unexpected shape: ${issues.slice(0, 5).join('; ')}`;
    throw new MalformedResponseError({ operation, status, rawBody, reason, retryable: false });
  }
  return parsed.data;
}

const TIMEOUT_PHASES: Record<string, 'connect' | 'headers' | 'body'> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

function transportError(
  operation: string,
  error: unknown,
  signal: AbortSignal | undefined,
  where: { status?: number; what?: string; deadline?: AbortSignal | undefined } = {},
): unknown {
  const { status, what = 'answer', deadline } = where;
  // Cancellation is not a failure to classify: let the caller see its own abort.
  if (signal?.aborted) return signal.reason ?? error;
  if (deadline?.aborted) return new TimeoutError({ operation, status, phase: 'answer', cause: error });
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const phase = TIMEOUT_PHASES[code];
  if (phase) return new TimeoutError({ operation, status, phase, cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new NetworkError({
    operation,
    status,
    cause: error,
    reason: `${code || 'error'} while reading the ${what}: ${message}`,
  });
}
