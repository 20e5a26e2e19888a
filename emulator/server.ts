import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { type Reply, type RequestContext, type Route } from './http/context';
import { FaultInjector, mergeJson } from './http/faults';
import { problem, ProblemError, type Problem } from './http/problems';
import { Router } from './http/router';
import { agentRoutes } from './routes/agent';
import { controlRoutes } from './routes/control';
import { createSessionRoute } from './routes/create-session';
import { providerRoutes } from './routes/providers';
import { redirectUriRoutes } from './routes/redirect-uris';
import { sessionResultRoutes } from './routes/session-results';
import { sessionRoutes } from './routes/sessions';
import { type EmulatorStore } from './state/store';

const MAX_BODY_BYTES = 1024 * 1024;

/** The HTTP front of the emulator: routing, authentication, counters, faults and encoding. */
export class EmulatorHttpServer {
  readonly server: Server;
  readonly faults: FaultInjector;
  readonly #router: Router;
  readonly #sockets = new Set<Socket>();
  #baseUrl = '';
  #requests = 0;

  constructor(
    readonly store: EmulatorStore,
    seed: number,
  ) {
    this.faults = new FaultInjector(seed);
    const routes: Route[] = [
      ...providerRoutes,
      ...redirectUriRoutes,
      createSessionRoute,
      ...sessionRoutes,
      ...sessionResultRoutes,
      ...agentRoutes,
      ...controlRoutes(this.faults),
    ];
    this.#router = new Router(routes);
    this.server = createServer((request, response) => {
      this.#handle(request, response)
        .catch(() => response.destroy())
        // Counted once handled: a state saved for this count includes what the request changed.
        .finally(() => (this.#requests += 1));
    });
    this.server.keepAliveTimeout = 65_000;
    this.server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /** Starts listening; resolves to the base address. */
  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    const address = this.server.address() as AddressInfo;
    this.#baseUrl = `http://${host}:${address.port}`;
    return this.#baseUrl;
  }

  /** Requests handled so far (any request may change the state: reads settle sessions). */
  get requestCount(): number {
    return this.#requests;
  }

  /** Stops accepting and closes every connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const method = request.method ?? 'GET';
    const match = this.#router.match(method, url.pathname);
    const body = await readBody(request);
    if (body === 'too-large')
      return send(response, problemReply(problem(413, { detail: 'The request body is too large.' })), 0);
    if (match === undefined)
      return send(response, problemReply(problem(404, { detail: `No operation at ${url.pathname}.` })), 0);
    if (match === 'method-not-allowed') {
      return send(
        response,
        problemReply(problem(405, { detail: `${method} is not allowed on ${url.pathname}.` })),
        0,
      );
    }
    const { route, params } = match;
    const context: RequestContext = {
      method,
      path: url.pathname,
      query: url.searchParams,
      params,
      headers: request.headers,
      body,
      principal: undefined,
      store: this.store,
      baseUrl: this.#baseUrl,
    };
    if (route.scope !== 'control') {
      const principal = this.#authenticate(request.headers.authorization);
      if (!principal) return send(response, problemReply(problem(401)), 0);
      context.principal = principal;
      this.store.count(route.operation, params.sessionId);
      const named = params.sessionId === undefined ? undefined : this.store.session(params.sessionId);
      const fault = this.faults.decide(route.operation, named?.outcome.done, params.sessionId);
      if (fault.latencyMs > 0) await delay(fault.latencyMs);
      if (fault.kind === 'drop') return void response.socket?.destroy();
      // Carried out whether or not the client still waits; answered only if it does.
      if (fault.kind === 'late') await delay(fault.lateMs);
      if (fault.kind === 'drop-response') {
        await this.#run(route, context);
        return void response.socket?.destroy();
      }
      if (fault.kind === 'error-after') await this.#run(route, context);
      if (fault.kind === 'error' || fault.kind === 'error-after')
        return send(
          response,
          problemReply(problem(fault.status, fault.detail === undefined ? {} : { detail: fault.detail })),
          0,
        );
      if (fault.kind === 'rate-limit') {
        const reply = problemReply(problem(429, { detail: 'Rate limit exceeded.' }));
        reply.headers = { ...reply.headers, 'retry-after': String(fault.retryAfterSeconds) };
        return send(response, reply, 0);
      }
      const reply = await this.#run(route, context);
      const shaped = fault.kind === 'none' ? fault : undefined;
      if (shaped?.mergeBody && reply.status < 300 && typeof reply.body === 'object')
        reply.body = mergeJson(reply.body, shaped.mergeBody);
      return send(response, reply, shaped?.slowBodyMs ?? 0);
    }
    return send(response, await this.#run(route, context), 0);
  }

  #authenticate(header: string | undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    return match?.[1] ? this.store.principals.get(match[1]) : undefined;
  }

  async #run(route: Route, context: RequestContext): Promise<Reply> {
    try {
      return await route.handle(context);
    } catch (error) {
      if (error instanceof ProblemError) return problemReply(error.problem);
      process.stderr.write(
        `emulator: ${route.operation} failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return problemReply(problem(500));
    }
  }
}

function problemReply(p: Problem): Reply {
  return {
    status: p.status,
    body: p.body,
    headers: { 'content-type': 'application/problem+json; charset=utf-8' },
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return 'too-large';
    chunks.push(buffer);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

async function send(response: ServerResponse, reply: Reply, slowBodyMs: number): Promise<void> {
  const headers: Record<string, string> = { ...reply.headers };
  let payload: Buffer;
  if (reply.body === undefined) {
    payload = Buffer.alloc(0);
  } else if (typeof reply.body === 'string') {
    payload = Buffer.from(reply.body);
  } else {
    payload = Buffer.from(JSON.stringify(reply.body));
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  headers['content-length'] = String(payload.length);
  response.writeHead(reply.status, headers);
  if (slowBodyMs > 0 && payload.length > 1) {
    const half = Math.floor(payload.length / 2);
    response.write(payload.subarray(0, half));
    await delay(slowBodyMs);
    if (response.destroyed) return;
    response.end(payload.subarray(half));
    return;
  }
  response.end(payload);
}
