import { ApplicationFailure } from '@temporalio/common';
import { QueryNotRegisteredError, WorkflowNotFoundError } from '@temporalio/client';
import { connectionWorkflowId, onboardingWorkflowId } from '../domain/agent-deliveries';
import { connectionEventsQuery, type SeenAgentEvent } from '../shared/messages';
import { onboardingProgressQuery } from '../shared/onboarding-messages';
import {
  InvalidOnboardingInputError,
  type OnboardingEventCounts,
  type OnboardingVerification,
  onboardingVerificationRequest,
} from '../domain/onboarding';
import { recordOfStart, type VerificationInput } from '../../verification/domain/verification';
import { Context } from '@temporalio/activity';
import { reserveReference } from '../../verification/client/reserve-reference';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { ONBOARDING_ALREADY_VERIFIED } from '../shared/failure-types';
import { type AgentPlatformDeps } from './deps';
import { classified } from '../../verification/activities/failures';
import { grpcStatus, grpcStatusOf } from '../../common/grpc-status';

/** The most runs of one onboarding's workflow ID read to find its last ended one. */
const EARLIER_RUNS_READ = 1_000;

/** Attempts at reading the last ended run before an onboarding goes on without its counts. */
const EARLIER_RUN_TRIES = 3;

/**
 * How long one attempt waits for each of its two reads (the connection's events; the last ended
 * run's listing and query), within the attempt's 10 s together: a read that hangs (a query no
 * worker answers, a slow visibility store) fails the attempt, rather than time it out with the
 * connection's events read and lost.
 */
const READ_WAIT_MS = 4_000;

/** `value` as a string of a visibility query. */
function visibilityString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** The events the connection's `agentConnection` keeps (the latest 100); none without one. */
async function connectionEvents(connection: {
  tenant: string;
  connectionId: string;
}): Promise<SeenAgentEvent[]> {
  const handle = Context.current().client.workflow.getHandle(
    connectionWorkflowId(connection.tenant, connection.connectionId),
  );
  try {
    return (await handle.query(connectionEventsQuery)).events;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return [];
    throw error;
  }
}

/**
 * What the run of `workflowId` that ended last (other than `runId`, and those that continued as
 * new) counted, and when its onboarding began; none when Temporal keeps no such run, or it ended
 * in its input check (refused, or ended while checking; an earlier build's refused the query).
 */
async function lastEndedRunProgress(
  workflowId: string,
  runId: string,
): Promise<{ events: OnboardingEventCounts; startedAt: number } | undefined> {
  const { client } = Context.current();
  let last: { runId: string; startedAt: number; closedAt: number } | undefined;
  let read = 0;
  for await (const found of client.workflow.list({ query: `WorkflowId = ${visibilityString(workflowId)}` })) {
    if (++read > EARLIER_RUNS_READ) break;
    const closedAt = found.closeTime?.getTime();
    // A run that continued as new handed its counts on to the next.
    if (found.runId === runId || closedAt === undefined || found.status.name === 'CONTINUED_AS_NEW') continue;
    if (last === undefined || closedAt > last.closedAt)
      last = { runId: found.runId, startedAt: found.startTime.getTime(), closedAt };
  }
  if (last === undefined) return undefined;
  try {
    const progress = await client.workflow.getHandle(workflowId, last.runId).query(onboardingProgressQuery);
    // A run that ended in its input check counted nothing: what it answers is its input's, and
    // its start would hide the connection's events received before it.
    if (progress.stage === 'checking' || progress.stage === 'refused') return undefined;
    // Runs of builds before `startedAt` was answered: the run's own start.
    const began = progress.startedAt === undefined ? last.startedAt : Date.parse(progress.startedAt);
    return { events: progress.events, startedAt: Number.isFinite(began) ? began : last.startedAt };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError || error instanceof QueryNotRegisteredError) return undefined;
    throw error;
  }
}

/** A server that does not list workflows (Temporal's test server): no retry changes that. */
function refusedListing(error: unknown): boolean {
  return grpcStatusOf(error) === grpcStatus.UNIMPLEMENTED;
}

/** What {@link onboardingActivities}' `prepareOnboardingVerification` takes. */
export interface OnboardingVerificationRequest {
  tenant: string;
  connectionId: string;
  verification: OnboardingVerification;
}

/** The onboarding's activity: its verification's input, prepared as a client start would. */
export function onboardingActivities(deps: AgentPlatformDeps) {
  return {
    /**
     * The verification's input: validated, reference `onboarding-verification:<tenant>-<connectionId>`,
     * data key created (the redaction destroys it). A retry after a lost answer leaves an unused
     * key behind, as a client's retried start would; never a second verification.
     */
    async prepareOnboardingVerification(request: OnboardingVerificationRequest): Promise<VerificationInput> {
      let parsed: ReturnType<typeof onboardingVerificationRequest>;
      try {
        parsed = onboardingVerificationRequest(request.tenant, request.connectionId, request.verification);
      } catch (error) {
        // Classified once, here: no retry makes invalid settings valid.
        if (error instanceof InvalidOnboardingInputError)
          throw ApplicationFailure.create({
            type: 'InvalidOnboardingInput',
            message: error.message,
            nonRetryable: true,
          });
        throw error;
      }
      const dataKeyId = await classified(() => deps.dataKeys.create());
      const input: VerificationInput = { ...parsed, dataKeyId };
      // Its reference is kept as a client start keeps it: one verification per connection, ever.
      const { client } = Context.current();
      const workflowId = verificationWorkflowId(input.reference);
      const reservation = await reserveReference(
        { records: deps.records, vault: deps.vault, dataKeys: deps.dataKeys },
        recordOfStart(input),
        { workflowId, client },
      );
      // A start taken over keeps its key: an attempt that timed out can still write its
      // reservation after its retry's, taking over the start whose input runs. The record keeps
      // it, and the verification's redaction destroys it.
      if (reservation.kind === 'used') {
        await deps.dataKeys.destroy(dataKeyId);
        throw ApplicationFailure.create({
          type: ONBOARDING_ALREADY_VERIFIED,
          message: `this connection's verification has run already: see ${workflowId}`,
          nonRetryable: true,
        });
      }
      return input;
    },

    /**
     * What the connection saw before this onboarding run: the events its `agentConnection` took
     * before it (the platform does not order its messages, so an awaited one may come before
     * `new_connection`) and the counts of its onboarding's last run that ended (one started again
     * by hand: the platform sends `new_connection` once, and that run took it). An ended run is
     * found through Temporal's visibility (a run ended in the last moment may not be listed yet)
     * and read by its `progress` query; none is found once Temporal no longer keeps it. Reading
     * it is tried by {@link EARLIER_RUN_TRIES} attempts; then the events go on without it,
     * `earlierRunUnread` said. Each read waits {@link READ_WAIT_MS} at most.
     */
    async eventsBeforeOnboarding(run: {
      tenant: string;
      connectionId: string;
      runId: string;
    }): Promise<{ events: SeenAgentEvent[]; earlierRun?: OnboardingEventCounts; earlierRunUnread?: true }> {
      const context = Context.current();
      const bounded = <T>(read: () => Promise<T>) =>
        context.client.connection.withDeadline(Date.now() + READ_WAIT_MS, read);
      const events = await bounded(() => connectionEvents(run));
      let earlier: Awaited<ReturnType<typeof lastEndedRunProgress>>;
      try {
        earlier = await bounded(() =>
          lastEndedRunProgress(onboardingWorkflowId(run.tenant, run.connectionId), run.runId),
        );
      } catch (error) {
        const lastTry = refusedListing(error) || context.info.attempt >= EARLIER_RUN_TRIES;
        if (!lastTry) throw error;
        context.log.warn(
          "the connection's earlier onboarding run could not be read: its counts are not carried on",
          {
            reason: error instanceof Error ? error.message : String(error),
          },
        );
        return { events, earlierRunUnread: true };
      }
      if (earlier === undefined) return { events };
      // That run (its first run, if it continued as new) counted what the connection took before
      // it began (it read them then), and the connection's events went to it while it ran: only
      // those since are new. (One whose time cannot be read is kept: a count too many costs less
      // than an awaited event missed.)
      const since = earlier.startedAt;
      return {
        events: events.filter((event) => !(Date.parse(event.receivedAt) < since)),
        earlierRun: earlier.events,
      };
    },

    /**
     * The events the connection's `agentConnection` took before its onboarding ran (those it
     * keeps, the latest 100): the platform does not order its messages, so an awaited one may
     * come before `new_connection`. None when it has none. (Runs from before
     * `eventsBeforeOnboarding` call it.)
     */
    async connectionEventsSoFar(connection: {
      tenant: string;
      connectionId: string;
    }): Promise<SeenAgentEvent[]> {
      return await connectionEvents(connection);
    },
  };
}
