import { type ServerResponse } from 'node:http';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { FINAL_URL_MEMO, referenceSchema } from '../../domain/verification';
import { redirectCapturedSignal } from '../../workflows/messages';
import { verificationWorkflowId } from '../../workflows/run-verification';
import { decodeSegment } from '../http/path-segment';

/** Options of {@link returnRoute}. */
export interface ReturnRouteOptions {
  /** How long Temporal may take to answer. @default 5000 */
  timeoutMs?: number;
  /** A reference is signalled at most once per this many ms (a reload, a bot). @default 5000 */
  signalEveryMs?: number;
}

const RECENT_LIMIT = 10_000;

/**
 * `GET /return/<reference>`: where the service sends the user back. It tells the verification
 * (signal `redirectCaptured`, so the outcome is checked at once) and sends the browser on to the
 * business's `finalUrl`. The query string (the service's results access key) is neither read,
 * logged, stored nor forwarded, and `Referrer-Policy: no-referrer` keeps the browser from
 * passing it on.
 */
export function returnRoute(client: Client, options: ReturnRouteOptions = {}) {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const signalEveryMs = options.signalEveryMs ?? 5_000;
  const signalledAt = new Map<string, number>();
  const mayTell = (workflowId: string): boolean => {
    const last = signalledAt.get(workflowId);
    return last === undefined || Date.now() - last >= signalEveryMs;
  };
  const told = (workflowId: string): void => {
    signalledAt.delete(workflowId);
    signalledAt.set(workflowId, Date.now());
    if (signalledAt.size > RECENT_LIMIT) signalledAt.delete(signalledAt.keys().next().value as string);
  };

  return async (rawReference: string, response: ServerResponse): Promise<void> => {
    const reference = referenceSchema.safeParse(decodeSegment(rawReference));
    if (!reference.success) return page(response, 404, 'This link is not valid.');
    const handle = client.workflow.getHandle(verificationWorkflowId(reference.data));
    let description;
    try {
      description = await client.connection.withDeadline(Date.now() + timeoutMs, () => handle.describe());
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return page(response, 404, 'This link is not valid.');
      return page(response, 503, 'We could not record your return just now: please reload this page.');
    }
    // Only a verification has a return: other workflows are none of a browser's business.
    if (description.type !== 'verificationSession') return page(response, 404, 'This link is not valid.');
    if (description.status.name === 'RUNNING' && mayTell(handle.workflowId)) {
      // Counted from now, so a burst of reloads sends one signal; forgotten if it fails.
      told(handle.workflowId);
      await client.connection
        .withDeadline(Date.now() + timeoutMs, () => handle.signal(redirectCapturedSignal))
        // Ended meanwhile, or Temporal slow: the verification still learns its outcome by polling.
        .catch(() => signalledAt.delete(handle.workflowId));
    }
    const finalUrl = description.memo?.[FINAL_URL_MEMO];
    if (typeof finalUrl === 'string' && /^https?:\/\//i.test(finalUrl)) {
      response.writeHead(303, { ...HEADERS, Location: finalUrl, 'Content-Length': '0' });
      return void response.end();
    }
    page(response, 200, 'Thank you: you can close this window now.');
  };
}

const HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

function page(response: ServerResponse, status: number, message: string): void {
  const body = `<!doctype html><meta charset="utf-8"><title>Verification</title><p>${message}</p>\n`;
  response.writeHead(status, {
    ...HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
  });
  response.end(body);
}
