import { type IncomingHttpHeaders } from 'node:http';
import { type EmulatorStore, type Principal } from '../state/store';

/** One request as a route handler sees it. */
export interface RequestContext {
  method: string;
  path: string;
  query: URLSearchParams;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The authenticated key's owner (identity and agent routes only). */
  principal: Principal | undefined;
  store: EmulatorStore;
  /** Public base address of this emulator, for URLs it hands out. */
  baseUrl: string;
}

/** What a handler answers. `body` undefined: no body. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Who may call a route. */
export type RouteScope = 'identity' | 'agent' | 'control';

/** One operation of the emulator. */
export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path with `:name` parameters, e.g. `/api/v1/sessions/:sessionId`. */
  pattern: string;
  /** Operation name (counters and fault injection). */
  operation: string;
  scope: RouteScope;
  handle(context: RequestContext): Reply | Promise<Reply>;
}

/** A successful JSON answer. */
export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}
