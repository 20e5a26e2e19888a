import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Client } from '@temporalio/client';
import { Runtime, type Worker } from '@temporalio/worker';
import { BUDGET_WINDOW_MS, type BudgetShare, type CallBudget } from '../api/http/call-budget';
import { IdvStatus } from '../common/search-attributes';
import { queryValue } from '../common/visibility-query';
import { type SessionStatus } from '../verification/domain/session-status';
import { verificationWorkflowTypes } from '../verification/shared/workflows';
import { type Poller, POLLER_LIVE_MS, taskQueuePollers } from './task-queue-pollers';

/** How often each process asks Temporal which workers poll its task queue (also each question's deadline). */
export const SHARE_REFRESH_MS = 2_000;
/**
 * A part holds this long after the question that gave it was asked; then the process holds every
 * call until an answer comes: a worker that joined meanwhile is counting on it to have shrunk.
 */
export const SHARE_STALE_MS = 2 * SHARE_REFRESH_MS;
/**
 * A joining process waits this long after Temporal first lists it before it calls: by then every
 * other process has asked again and shrunk (or holds, out of touch), and their windows have
 * emptied.
 */
export const SHARE_JOIN_MS = SHARE_STALE_MS + SHARE_REFRESH_MS + BUDGET_WINDOW_MS + 1_000;
/**
 * A process counts itself live for this much less than the others count it, so that a worker the
 * others stopped counting (its polls stopped: hung, every slot busy) holds its calls. It covers
 * a part's {@link SHARE_STALE_MS} and the window, and about 10 s of skew between the clocks of
 * the worker hosts and Temporal's.
 */
export const SELF_LIVE_MARGIN_MS = 10_000 + SHARE_STALE_MS + BUDGET_WINDOW_MS;
/** Failed counts of the polled verifications in a row after which the last count is dropped. */
export const COUNT_FAILURES_KEPT = 3;
/** A hold this long is logged (Temporal out of reach, a clock far ahead, more workers than calls). */
const LONG_HOLD_MS = 30_000;

/** What Temporal answered, for {@link ShareKeeper.heard}. */
export interface ShareAnswer {
  /** When the question was asked, on the budget's monotonic clock (the part holds from then). */
  askedAt: number;
  /** The wall clock then (ms since the epoch), to age the pollers' last polls. */
  wallNow: number;
  pollers: readonly Poller[];
  /** Verifications of the task queue whose sessions are polled (last counted). */
  openVerifications: number;
}

/**
 * One process's part of a call budget shared by every worker polling its task queue: the rate
 * divided among the workers Temporal lists (the remainder one call each to the first, in the
 * order of their identities), so that no second sees more than the rate whatever joins, leaves
 * or loses touch. A process calls only once Temporal lists it and {@link SHARE_JOIN_MS} has
 * passed; each answer shrinks or grows its part, which holds {@link SHARE_STALE_MS} from the
 * question. More workers than calls per second: the last ones in that order get none.
 */
export class ShareKeeper {
  readonly #rate: number;
  readonly #self: string;
  #listedSince: number | undefined;
  #askedAt = Number.NEGATIVE_INFINITY;

  constructor(options: { callsPerSecond: number; identity: string }) {
    this.#rate = Math.floor(options.callsPerSecond);
    this.#self = options.identity;
  }

  /** The part an answer gives; also the workers counted. */
  heard(answer: ShareAnswer): BudgetShare & { workers: number } {
    this.#askedAt = answer.askedAt;
    const lastPoll = new Map<string, number>();
    for (const poller of answer.pollers)
      lastPoll.set(poller.identity, Math.max(lastPoll.get(poller.identity) ?? 0, poller.lastAccessMs));
    const live = [...lastPoll]
      .filter(([, at]) => answer.wallNow - at <= POLLER_LIVE_MS)
      .map(([identity]) => identity)
      .sort();
    const own = lastPoll.get(this.#self);
    const selfLive = own !== undefined && answer.wallNow - own <= POLLER_LIVE_MS - SELF_LIVE_MARGIN_MS;
    // Alone, a process plans polls from the sessions it polls itself (as an unshared budget does).
    const part = (callsPerSecond: number) => ({
      callsPerSecond,
      polledSessions: live.length > 1 ? answer.openVerifications : 0,
      validUntil: answer.askedAt + SHARE_STALE_MS,
      workers: live.length,
    });
    // Live to itself implies live to the others (listed in `live`): the margin is shorter.
    if (!selfLive) {
      this.#listedSince = undefined;
      return part(0);
    }
    this.#listedSince ??= answer.askedAt;
    if (answer.askedAt - this.#listedSince < SHARE_JOIN_MS) return part(0);
    const rank = live.indexOf(this.#self);
    return part(Math.floor(this.#rate / live.length) + (rank < this.#rate % live.length ? 1 : 0));
  }

  /** No answer to the question asked at `askedAt`: out of touch past {@link SHARE_STALE_MS}, the process joins again. */
  unheard(askedAt: number): void {
    if (askedAt - this.#askedAt >= SHARE_STALE_MS) this.#listedSince = undefined;
  }
}

/** Options of {@link shareCallBudget}. */
export interface ShareCallBudgetOptions {
  /**
   * The worker whose task queue the budget is shared on (its client, namespace, task queue and
   * identity; every worker's identity must be its own, see {@link uniqueWorkerIdentity}).
   */
  worker: Worker;
  /** The budget its activities call through; its `callsPerSecond` is the limit of all the workers together. */
  budget: CallBudget;
}

/** A worker identity no other process has (Temporal's default, `<pid>@<host>`, repeats across containers). */
export function uniqueWorkerIdentity(): string {
  return `${process.pid}@${hostname()}-${randomBytes(4).toString('hex')}`;
}

/**
 * Shares `budget` (its `callsPerSecond` is the service's limit for all of them) with every worker
 * polling the same task queue, as Temporal lists them (see {@link ShareKeeper}): every 2 s each
 * process asks, and calls at most its part; polls are planned over every verification of the
 * task queue whose session is polled. The worker holds its calls until Temporal lists it (about
 * {@link SHARE_JOIN_MS} after it starts polling). Returns the function that stops sharing; the budget then holds
 * every call once its last part runs out.
 */
export function shareCallBudget(options: ShareCallBudgetOptions): () => void {
  const { worker, budget } = options;
  const client = worker.client;
  if (!client) throw new Error('the worker has no client to ask Temporal for its task queue’s workers');
  const { taskQueue, namespace, identity } = worker.options;
  const rate = budget.stats().callsPerSecond;
  const keeper = new ShareKeeper({ callsPerSecond: rate, identity });
  const logger = Runtime.instance().logger;
  budget.share({ callsPerSecond: 0, polledSessions: 0 });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let openVerifications = 0;
  let heldSince: number | undefined;
  let warned = false;
  const deadline = () => Date.now() + SHARE_REFRESH_MS;
  // Polls are planned from it, so it is asked every time a part is: a count even 30 s old still
  // held the sessions finished since, and every poll came that much later. A part never waits
  // for it (a slow count would let the part run out). A failed count keeps the last one a while;
  // past COUNT_FAILURES_KEPT in a row the process plans from the sessions whose next poll it
  // awaits, times the workers (said once in the log), never from a count that ages without end.
  let counting = false;
  let countFailures = 0;
  const countSessions = () => {
    if (counting) return;
    counting = true;
    client.connection
      .withDeadline(deadline(), () => polledVerifications(client, taskQueue))
      .then(
        (count) => {
          openVerifications = count;
          countFailures = 0;
        },
        (error: unknown) => {
          countFailures += 1;
          if (countFailures !== COUNT_FAILURES_KEPT) return;
          openVerifications = 0;
          logger.warn(
            `could not count the polled verifications of task queue ${taskQueue} (a visibility query on IdvStatus): polls are planned from the sessions this worker awaits, times the workers, until a count comes (${String(error)})`,
          );
        },
      )
      .finally(() => {
        counting = false;
      });
  };
  const refresh = async () => {
    const askedAt = budget.now();
    const wallNow = Date.now();
    let workers = 0;
    try {
      countSessions();
      const pollers = await client.connection.withDeadline(deadline(), () =>
        taskQueuePollers(client, { namespace, taskQueue }),
      );
      if (stopped) return;
      const share = keeper.heard({ askedAt, wallNow, pollers, openVerifications });
      workers = share.workers;
      budget.share(share);
      warned = false;
    } catch (error) {
      if (stopped) return;
      keeper.unheard(askedAt);
      if (!warned)
        logger.warn(
          `could not ask Temporal for the workers of task queue ${taskQueue}: calls stop ${SHARE_STALE_MS} ms after the last answer, until one comes (${String(error)})`,
        );
      warned = true;
    }
    const held = budget.stats().share === 0;
    heldSince = held ? (heldSince ?? askedAt) : undefined;
    if (heldSince !== undefined && askedAt - heldSince >= LONG_HOLD_MS) {
      logger.warn(
        workers > rate
          ? `${workers} workers poll task queue ${taskQueue}, more than its ${rate} calls/s (IDV_API_RATE): this one makes no call`
          : `this worker has made no call for ${Math.round((askedAt - heldSince) / 1000)} s: Temporal does not list it among the live workers of task queue ${taskQueue} (out of reach, or this host's clock is ahead)`,
      );
      heldSince = askedAt;
    }
    timer = setTimeout(() => void refresh(), SHARE_REFRESH_MS);
  };
  void refresh();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

const PENDING: SessionStatus = 'pending';

/**
 * Verifications running on the task queue whose sessions are polled (`IdvStatus` pending): the
 * sessions the polls are spread over. One starting, or past its outcome, needs no poll.
 */
export async function polledVerifications(client: Client, taskQueue: string): Promise<number> {
  const { count } = await client.workflow.count(
    `TaskQueue = ${queryValue(taskQueue)} AND WorkflowType = ${queryValue(verificationWorkflowTypes.session)} AND ExecutionStatus = 'Running' AND ${IdvStatus.name} = ${queryValue(PENDING)}`,
  );
  return count;
}
