import { type ServerResponse } from 'node:http';

/** Answers that are never cached nor sniffed; a 4xx/5xx body is problem details (RFC 9457). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? undefined : JSON.stringify(body);
  response.writeHead(status, {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...(text === undefined
      ? {}
      : {
          'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json',
          'Content-Length': String(Buffer.byteLength(text)),
        }),
    ...headers,
  });
  response.end(text);
}

/** Answers sent before the body is read close the connection rather than read what is left. */
export const closeConnection = { Connection: 'close' } as const;
