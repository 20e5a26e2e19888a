import { type ServerResponse } from 'node:http';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type ReceiverTokens } from '../../codec/receiver-tokens';
import { FINAL_URL_MEMO, referenceSchema } from '../../verification/domain/verification';
import { redirectCapturedSignal } from '../../verification/shared/messages';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { decodeSegment } from '../../http/path-segment';
import { verificationWorkflowTypes } from '../../verification/shared/workflows';
import { failureFields } from './failure-kind';
import { type OperationalLog, SampledCount } from './operational-log';

/** Options of {@link returnRoute}. */
export interface ReturnRouteOptions {
  /** A client of the verifications' namespace (it reads the `finalUrl` memo and signals). */
  client: Client;
  /** The receiver's path tokens: a return's token is bound to its reference. */
  tokens: ReceiverTokens;
  /** How long Temporal may take to answer. @default 5000 */
  timeoutMs?: number;
  /** A reference is signalled at most once per this many ms (a reload, a bot). @default 5000 */
  signalEveryMs?: number;
  /** Operational events (no reference, token or error text). @default none */
  log?: OperationalLog;
}

const RECENT_LIMIT = 10_000;

/**
 * `GET /return/<reference>/<token>`: where the service sends the user back. It tells the
 * verification (signal `redirectCaptured`, so the outcome is checked at once) and sends the
 * browser on to the business's `finalUrl`. The token is checked before anything is asked of
 * Temporal: a missing or wrong one gets the answer of an unknown reference, so guessing references
 * neither costs the service a call nor tells which exist or where they lead. The query string
 * (the service's results access key) is neither read, logged, stored nor forwarded, and
 * `Referrer-Policy: no-referrer` keeps the browser from passing it on.
 */
export function returnRoute(options: ReturnRouteOptions) {
  const { client, tokens } = options;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const signalEveryMs = options.signalEveryMs ?? 5_000;
  const signalledAt = new Map<string, number>();
  const log = options.log ?? (() => undefined);
  const signalsFailed = new SampledCount();
  const mayTell = (workflowId: string): boolean => {
    const last = signalledAt.get(workflowId);
    return last === undefined || Date.now() - last >= signalEveryMs;
  };
  const told = (workflowId: string): void => {
    signalledAt.delete(workflowId);
    signalledAt.set(workflowId, Date.now());
    if (signalledAt.size > RECENT_LIMIT) signalledAt.delete(signalledAt.keys().next().value as string);
  };

  return async (path: { reference: string; token: string }, response: ServerResponse): Promise<void> => {
    const reference = referenceSchema.safeParse(decodeSegment(path.reference));
    // An invalid reference costs the same comparison as a valid one with a wrong token.
    const valid =
      tokens.matchesReturn(reference.success ? reference.data : '', decodeSegment(path.token)) &&
      reference.success;
    if (!valid) return page(response, 404, NOT_VALID);
    const handle = client.workflow.getHandle(verificationWorkflowId(reference.data));
    let description;
    try {
      description = await client.connection.withDeadline(Date.now() + timeoutMs, () => handle.describe());
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return page(response, 404, NOT_VALID);
      return page(response, 503, 'We could not record your return just now: please reload this page.');
    }
    // Only a verification has a return: other workflows are none of a browser's business.
    if (description.type !== verificationWorkflowTypes.session) return page(response, 404, NOT_VALID);
    if (description.status.name === 'RUNNING' && mayTell(handle.workflowId)) {
      // Counted from now, so a burst of reloads sends one signal; forgotten if it fails.
      told(handle.workflowId);
      await client.connection
        .withDeadline(Date.now() + timeoutMs, () => handle.signal(redirectCapturedSignal))
        .catch((error: unknown) => {
          signalledAt.delete(handle.workflowId);
          // Ended since the look-up: it has its outcome, so there was nothing left to tell.
          if (error instanceof WorkflowNotFoundError) return;
          // Temporal slow or away: the verification still learns its outcome by polling.
          if (signalsFailed.add())
            log(
              'a return could not be told to its verification: it learns its outcome by polling',
              { ...failureFields(error), count: signalsFailed.count },
              'warn',
            );
        });
    }
    const finalUrl = description.memo?.[FINAL_URL_MEMO];
    if (typeof finalUrl === 'string' && /^https?:\/\//i.test(finalUrl)) {
      response.writeHead(303, { ...HEADERS, Location: finalUrl, 'Content-Length': '0' });
      return void response.end();
    }
    page(response, 200, 'Thank you: you can close this window now.');
  };
}

/** One answer for every return that leads nowhere, whatever the reason. */
const NOT_VALID = 'This link is not valid.';

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
