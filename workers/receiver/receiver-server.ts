import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Client } from '@temporalio/client';
import { type MetricMeter } from '@temporalio/common';
import {
  type AgentDelivery,
  InvalidDeliveryError,
  parseAgentDelivery,
} from '../../agent-platform/domain/agent-deliveries';
import { type OnboardingSettings } from '../../agent-platform/domain/onboarding-settings';
import { tenantSchema } from '../../agent-platform/domain/tenant-schema';
import { readBody } from '../../http/read-body';
import { closeConnection, sendJson } from '../../http/respond';
import { DeliveryIntake, type IntakeOutcome } from './delivery-intake';
import { ConnectionShareFullError, DeliverySpool, SpoolFullError } from './delivery-spool';
import { failureFields } from './failure-kind';
import { type OperationalLog, SampledCount } from './operational-log';
import { returnRoute } from './return-route';
import { temporalHandOff } from './temporal-hand-off';
import { type ReceiverTokens } from '../../codec/receiver-tokens';
import { decodeSegment } from '../../http/path-segment';

/** Options of {@link startReceiver}. */
export interface ReceiverOptions {
  /** A client with the workers' data converter (payloads encrypted). */
  client: Client;
  /** The task queue of the workers that run the connection workflows. */
  taskQueue: string;
  /** The path tokens of tenants' deliveries and of verifications' returns. */
  tokens: ReceiverTokens;
  /** The durable spool (one receiver process per directory). */
  spoolDir: string;
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Largest delivery body accepted. @default 65536 */
  maxBodyBytes?: number;
  /** How long Temporal may take to take a delivery before it is spooled. @default 5000 */
  handOffTimeoutMs?: number;
  /** Operational events (no request lines, tokens, query strings, error texts or personal data). @default none */
  log?: OperationalLog;
  /** Deliveries the spool holds at most; past it deliveries get 503 (not accepted). @default 100000 */
  maxSpooledDeliveries?: number;
  /** Deliveries of one connection the spool holds at most; past it its deliveries get 503. @default 10000 */
  maxSpooledPerConnection?: number;
  /** Tenants whose connections are onboarded (`onboarding` workflow) instead of `agentConnection`. @default none */
  onboarding?: OnboardingSettings;
  /**
   * Where `idv_receiver_deliveries{result}`, `idv_receiver_spool_depth` and
   * `idv_receiver_longest_wait_seconds` go (the Temporal runtime's meter, so they share the worker's
   * Prometheus endpoint). @default none
   */
  meter?: MetricMeter;
}

/** A running receiver. */
export interface Receiver {
  /** Base address, e.g. `http://127.0.0.1:8234`. */
  url: string;
  /** Deliveries waiting in the spool for Temporal. */
  spoolDepth(): number;
  /** Stops accepting, closes connections and the replay loop; the spool stays for the next start. */
  close(): Promise<void>;
}

const AGENT_PATH = /^\/agent\/([^/]+)\/([^/]+)\/?$/;
/** The token is optional here so that a return without one gets the return route's refusal. */
const RETURN_PATH = /^\/return\/([^/]+)(?:\/([^/]+))?\/?$/;

/**
 * Starts the receiver: `POST /agent/<tenant>/<token>` takes the earlier platform's deliveries
 * into Temporal (or the spool), `GET /return/<reference>/<token>` takes users back from redirect flows,
 * `GET /health` reports the spool's depth. It logs no request line: paths hold tokens and the
 * return's query string holds the service's results access key.
 */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const log = options.log ?? (() => undefined);
  const spool = await DeliverySpool.open(options.spoolDir, {
    log,
    ...(options.maxSpooledDeliveries !== undefined ? { maxEntries: options.maxSpooledDeliveries } : {}),
    ...(options.maxSpooledPerConnection !== undefined
      ? { maxEntriesPerConnection: options.maxSpooledPerConnection }
      : {}),
  });
  /** Events of onboarded tenants that no onboarding took, by reason. */
  const notOnboarded = { ended: new SampledCount(), invalid: new SampledCount() };
  const intake = new DeliveryIntake(
    spool,
    temporalHandOff(options.client, {
      taskQueue: options.taskQueue,
      ...(options.handOffTimeoutMs !== undefined ? { timeoutMs: options.handOffTimeoutMs } : {}),
      ...(options.onboarding ? { onboarding: options.onboarding } : {}),
      onNotOnboarded: (reason) => {
        const counted = notOnboarded[reason];
        if (counted.add())
          log(
            reason === 'ended'
              ? 'event(s) for connections whose onboarding had ended (or took no more): given to their agentConnection'
              : 'event(s) for connections the onboarding settings make no valid input for (ids too long?): given to their agentConnection',
            { count: counted.count },
          );
      },
    }),
    { log },
  );
  const metrics = receiverMetrics(options.meter, intake);
  const returning = returnRoute({ client: options.client, tokens: options.tokens, log });
  /** Said once per stretch of refusals, not per refused POST. */
  let refusing = false;
  /** Deliveries refused for their connection's share of the spool: the first and every 100th said. */
  const connectionFull = new SampledCount();
  const route = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
    const agent = AGENT_PATH.exec(path);
    if (agent) {
      if (request.method !== 'POST')
        return sendJson(
          response,
          405,
          { title: 'method not allowed' },
          { ...closeConnection, Allow: 'POST' },
        );
      return await deliver(request, response, { tenant: agent[1] ?? '', token: agent[2] ?? '' });
    }
    const back = RETURN_PATH.exec(path);
    if (back && (request.method === 'GET' || request.method === 'HEAD'))
      return await returning({ reference: back[1] ?? '', token: back[2] ?? '' }, response);
    if (path === '/health' && request.method === 'GET')
      // A receiver that lost its spool's lock accepts nothing it cannot hand straight on: unhealthy.
      return spool.lockLost
        ? sendJson(response, 503, { ok: false, spoolDepth: spool.depth, spoolLockLost: true })
        : sendJson(response, 200, {
            ok: true,
            spoolDepth: spool.depth,
            longestWaitSeconds: Math.floor(intake.longestWaitMs() / 1_000),
          });
    sendJson(response, 404, { title: 'not found' }, closeConnection);
  };
  const deliver = async (
    request: IncomingMessage,
    response: ServerResponse,
    credentials: { tenant: string; token: string },
  ) => {
    const tenant = tenantSchema.safeParse(decodeSegment(credentials.tenant));
    // An unknown tenant and a wrong token get the same answer, in the same time.
    const token = decodeSegment(credentials.token);
    const valid = options.tokens.matchesTenant(tenant.success ? tenant.data : '', token) && tenant.success;
    if (!valid) {
      metrics.delivery('unauthorized');
      return sendJson(response, 401, { title: 'unauthorized' }, closeConnection);
    }
    const body = await readBody(request, maxBodyBytes);
    if (!body) {
      metrics.delivery('too-large');
      return sendJson(
        response,
        413,
        { title: 'payload too large', detail: `at most ${maxBodyBytes} bytes` },
        closeConnection,
      );
    }
    let delivery: AgentDelivery;
    try {
      delivery = parseAgentDelivery(JSON.parse(body.toString('utf8')));
    } catch (error) {
      if (error instanceof SyntaxError || error instanceof InvalidDeliveryError) metrics.delivery('invalid');
      if (error instanceof SyntaxError)
        return sendJson(response, 400, { title: 'bad request', detail: 'the body is not JSON' });
      if (error instanceof InvalidDeliveryError)
        return sendJson(response, 400, { title: 'bad request', detail: error.message, errors: error.errors });
      throw error;
    }
    let outcome: IntakeOutcome;
    try {
      outcome = await intake.accept({
        tenant: tenant.data,
        ...delivery,
        receivedAt: new Date().toISOString(),
      });
    } catch (error) {
      // Not durable anywhere: the platform must not take this for acceptance.
      if (error instanceof SpoolFullError) {
        if (error instanceof ConnectionShareFullError) {
          // One connection's (its workflow refusing its signals): the others go on.
          if (connectionFull.add())
            log(
              "refusing a connection's deliveries: it holds its share of the spool",
              { count: connectionFull.count },
              'warn',
            );
        } else {
          if (!refusing) log('refusing deliveries: the spool is full', { spoolDepth: spool.depth }, 'error');
          refusing = true;
        }
        metrics.delivery('refused');
        return sendJson(
          response,
          503,
          { title: 'unavailable', detail: 'try again later' },
          { 'Retry-After': '60' },
        );
      }
      throw error;
    }
    refusing = false;
    metrics.delivery(outcome);
    sendJson(response, outcome === 'spooled' ? 202 : 200, { status: outcome });
  };

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      // A spool that cannot be written: the platform must not take this for acceptance.
      log('a request failed', failureFields(error), 'error');
      metrics.delivery('error');
      if (!response.headersSent) sendJson(response, 500, { title: 'internal error' }, closeConnection);
      else response.destroy();
    });
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  intake.start();
  const host = options.host ?? '127.0.0.1';
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    spoolDepth: () => spool.depth,
    close: async () => {
      metrics.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await intake.close();
      await spool.close();
    },
  };
}

/**
 * Deliveries by result; the spool's depth, and how long the connection waiting longest has had
 * its hand-offs fail, sampled every 5 s and after each delivery.
 */
function receiverMetrics(meter: MetricMeter | undefined, intake: DeliveryIntake) {
  if (!meter) return { delivery: (_result: string) => undefined, stop: () => undefined };
  const deliveries = meter.createCounter(
    'idv_receiver_deliveries',
    'deliveries',
    'Agent deliveries by result',
  );
  const spoolDepth = meter.createGauge(
    'idv_receiver_spool_depth',
    'int',
    'deliveries',
    'Deliveries waiting in the spool',
  );
  const longestWait = meter.createGauge(
    'idv_receiver_longest_wait_seconds',
    'int',
    's',
    "How long the connection waiting longest has had its deliveries' hand-offs to Temporal fail",
  );
  const sample = () => {
    spoolDepth.set(intake.spoolDepth);
    longestWait.set(Math.floor(intake.longestWaitMs() / 1_000));
  };
  sample();
  const sampler = setInterval(sample, 5_000);
  sampler.unref();
  return {
    delivery(result: string) {
      deliveries.add(1, { result });
      sample();
    },
    stop: () => clearInterval(sampler),
  };
}
