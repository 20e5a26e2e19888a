import { showDetails } from '../../common/current-details';
import { MAX_DATE_MS } from '../../common/durations';
import { onboardingMetadata } from '../shared/metadata';
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { VerificationActivities } from '../../verification/activities/index';
import type { AgentPlatformActivities } from '../activities/index';
import { type AgentMessageType, agentMessageTypes, isPlatformId } from '../../common/agent-message-types';
import { deliveryKey } from '../domain/agent-delivery';
import type { OnboardingInput } from '../domain/onboarding';
import {
  addEventCounts,
  type OnboardingEventCounts,
  onboardingLimits,
  onboardingReference,
} from '../domain/onboarding-rules';
import { INPUT_CHECKED_BY_ACTIVITY } from '../../verification/workflows/activity-proxies';
import { agentInputChecks } from './activity-proxies';
import { FINAL_URL_MEMO } from '../../verification/domain/outcome';
import type { VerificationInput } from '../../verification/domain/verification';
import { type AgentEvent, agentEventSignal } from '../shared/messages';
import { describeFailure } from '../../common/bounded-step';
import { activityFailureType } from '../../common/failure-types';
import { ONBOARDING_ALREADY_VERIFIED } from '../shared/failure-types';
import { countGiveUp, gaveUp } from '../../common/maintenance';
import { type VerificationEnding, verificationEndedSignal } from '../../verification/shared/messages';
import {
  type OnboardingProgress,
  onboardingProgressQuery,
  type OnboardingSummary,
} from '../shared/onboarding-messages';
import { verificationWorkflowId } from '../../verification/shared/ids';
import { verificationMetadata } from '../../verification/shared/metadata';
import { verificationSession } from '../../verification/workflows/verification-session';
import { agentPlatformVersioning } from '../shared/workflows';
import { setWorkflowOptions } from '@temporalio/workflow';
import { markdownLines } from '../../common/user-metadata';

/**
 * The patch under which an onboarding's first run counts the events its connection's
 * `agentConnection` took before it (an awaited event that came before `new_connection` was lost
 * to it, and it waited until its deadline).
 */
const EARLIER_EVENTS_COUNTED = 'earlier-events-counted';

/**
 * The patch under which an onboarding's first run also counts what its connection's last ended
 * onboarding run counted (one started again by hand after it timed out or was cancelled waited
 * for a `new_connection` the platform had sent already, to that run, until its own deadline).
 */
const EARLIER_RUNS_COUNTED = 'earlier-runs-counted';

/**
 * The patch under which an event whose ids are not the platform's (a signal sent by hand) is
 * ignored: its key, carried into the next run, failed that run's input check.
 */
const EVENT_IDS_CHECKED = 'event-ids-checked';

/**
 * The patch under which a run an onboarding continued into does not check its verification's
 * rules again (the rest of its input is): the first run checked them, and a build with stricter
 * rules (a setting renamed or tightened) would fail running work whose verification goes on,
 * abandoned, and reports to no one. Its prepare checks them before it verifies.
 */
const CARRIED_RUNS_UNCHECKED = 'carried-runs-unchecked';

/**
 * The patch under which a cancel that comes with (or after) the verification's report of its
 * ending no longer turns a verified onboarding into a cancelled one: the verification ended,
 * and there is nothing left to cancel. Nor does one that comes just before the verification
 * reports its success (it had succeeded, its clean-up still running, when the cancel came).
 */
const REPORTED_ENDING_KEPT = 'reported-ending-kept-on-cancel';

/**
 * The patch under which an onboarding whose deadline passed waits {@link LATE_DELIVERY_GRACE_MS}
 * more for the events it awaits: the receiver hands over late what it accepted before the
 * deadline while Temporal was away (spooled), and Temporal, back, fires the deadline's timer
 * first. Every event counts then (one it ignored would be lost: the receiver hands it to no one
 * else while the onboarding runs).
 */
const LATE_DELIVERIES_WAITED = 'late-deliveries-waited';

/** How long past its deadline an onboarding waits for events handed over late (see above). */
const LATE_DELIVERY_GRACE_MS = 2 * 60_000;

/** Reading the connection's earlier events: a minute, then the onboarding goes on without them. */
const { connectionEventsSoFar, eventsBeforeOnboarding } = proxyActivities<AgentPlatformActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

// Preparing is our own store's work: an hour of retries, then the onboarding gives up visibly.
const { prepareOnboardingVerification, destroyDataKey } = proxyActivities<
  AgentPlatformActivities & VerificationActivities
>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Deliveries remembered for deduplication (as agentConnection): far more than one onboarding sees. */
const MAX_KEYS_REMEMBERED = 2_000;

/**
 * How long past its own deadline a verification may take to end and report (results, clean-up);
 * an onboarding waits no longer for it.
 */
const VERIFICATION_GRACE_MS = 2 * 3_600_000;

/** How long a cancelled onboarding waits for its cancelled verification's clean-up to report. */
const CANCEL_GRACE_MS = 10 * 60_000;

/**
 * The onboarding of one connection of a tenant (`idv-onboarding-<tenant>-<connectionId>`), started
 * by the receiver's signal-with-start or by `OnboardingClient`: it waits, days if need be, until
 * every `waitFor` event has come, runs the person's verification and ends with a summary of
 * counts and the outcome, never the person's data. The pattern a business copies: signals only
 * record, the main flow only waits and decides. The verification is started abandoned and tells
 * its ending by signal (`reportTo`), so the onboarding continues as new while it runs too:
 * events keep coming for up to 30 days, and the history stays bounded.
 */
export async function onboarding(input: OnboardingInput): Promise<OnboardingSummary> {
  // Read before the check: the time a local activity's answer comes back with differs between
  // the run and its replay, so a deadline taken after it would change when a worker replays.
  const firstTaskAt = Date.now();
  // Asked in the first task, before the check: a patch first asked right after a local
  // activity's answer falls in another workflow task on replay than when it ran.
  const countsEarlierEvents = input?.carried === undefined && patched(EARLIER_EVENTS_COUNTED);
  const countsEarlierRuns = countsEarlierEvents && patched(EARLIER_RUNS_COUNTED);
  const continued = input?.carried !== undefined && patched(CARRIED_RUNS_UNCHECKED);
  const idsChecked = patched(EVENT_IDS_CHECKED);
  const lateDeliveriesWaited = patched(LATE_DELIVERIES_WAITED);
  // Answered from the first task on: a query sent right after the start comes with that task
  // and is answered once its first activation has run, the input check (below) still under way.
  // A run that ends in the check says so to the queries that reach it once ended.
  let progress = (): OnboardingProgress => progressFromInput(input, firstTaskAt, 'checking');
  setHandler(onboardingProgressQuery, () => progress());
  const refused = () => (progress = () => progressFromInput(input, firstTaskAt, 'refused'));
  // Refused at once: bad settings would otherwise wait days before failing in the verification.
  // Histories of builds that checked in the workflow passed the check there (or ended at it).
  // Not cancellable: a cancel that comes meanwhile is seen once the onboarding runs.
  const problems = await (
    continued
      ? CancellationScope.nonCancellable(() => agentInputChecks.checkCarriedOnboardingInput(input))
      : patched(INPUT_CHECKED_BY_ACTIVITY)
        ? CancellationScope.nonCancellable(() => agentInputChecks.checkOnboardingInput(input))
        : Promise.resolve([])
  ).catch((error: unknown) => {
    refused();
    throw error;
  });
  if (problems.length > 0) {
    refused();
    throw ApplicationFailure.create({
      type: 'InvalidOnboardingInput',
      message: `invalid onboarding input: ${problems.join('; ')}`,
      nonRetryable: true,
    });
  }
  const { tenant, connectionId, carried } = input;
  const waitFor = input.waitFor ?? onboardingLimits.waitFor;
  const maxHistoryEvents = input.maxHistoryEvents ?? onboardingLimits.maxHistoryEvents.default;
  // Carried across runs: the deadline and the wait are the connection's, not one run's.
  const startedAt = carried?.startedAt ?? firstTaskAt;
  const deadline = carried?.deadline ?? startedAt + (input.timeoutMs ?? onboardingLimits.timeout.defaultMs);
  const events: OnboardingEventCounts = {
    total: carried?.events.total ?? 0,
    duplicates: carried?.events.duplicates ?? 0,
    ignored: carried?.events.ignored ?? 0,
    byType: { ...carried?.events.byType },
  };
  const keys = new Set(carried?.keys ?? []);
  const reference = onboardingReference(tenant, connectionId);
  const verification = { reference, workflowId: verificationWorkflowId(reference) };
  let stage: OnboardingProgress['stage'] = carried?.verifying ? 'verifying' : 'waiting';
  let verificationBegun = carried?.verifying !== undefined;
  let ending: VerificationEnding | undefined;
  let waitedMs = 0;
  const missing = () => waitFor.filter((type) => !events.byType[type]);

  // Handlers first: a signal-with-start's signal is delivered before the main flow runs.
  // Set once the deadline passed and its grace began (it is taken once).
  let graceTaken = false;
  const record = (event: AgentEvent) => {
    // Not this connection's, or not an event (a signal sent by hand): counted, nothing else.
    const ours =
      event?.tenant === tenant &&
      event.connectionId === connectionId &&
      agentMessageTypes.includes(event.messageType) &&
      (idsChecked ? isPlatformId(event.objectId) : typeof event.objectId === 'string');
    if (!ours) {
      events.ignored += 1;
      return;
    }
    const key = deliveryKey(event);
    if (keys.has(key)) {
      events.duplicates += 1;
      return;
    }
    // Oldest first out: a repeat that late is long past mattering, and the history stays bounded.
    keys.add(key);
    if (keys.size > MAX_KEYS_REMEMBERED) keys.delete(keys.values().next().value as string);
    events.total += 1;
    events.byType[event.messageType] = (events.byType[event.messageType] ?? 0) + 1;
  };
  setHandler(agentEventSignal, record);
  setHandler(verificationEndedSignal, (ended: VerificationEnding) => {
    if (ended?.reference === reference) ending = ended;
  });
  progress = () => ({
    tenant,
    connectionId,
    stage,
    waitingFor: missing(),
    events: { ...events, byType: { ...events.byType } },
    deadline: new Date(deadline).toISOString(),
    startedAt: new Date(startedAt).toISOString(),
    ...(verificationBegun && { verification }),
  });

  const historyLarge = () => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= maxHistoryEvents;
  };
  const summary = async (
    endedBy: OnboardingSummary['endedBy'],
    outcome?: VerificationEnding,
  ): Promise<OnboardingSummary> => {
    stage = 'done';
    showDetails(
      markdownLines([
        `**done**: ${endedBy}`,
        outcome
          ? `Verification ${verification.workflowId}: ${outcome.status}${outcome.errorCode ? ` (${outcome.errorCode})` : ''}`
          : '',
      ]),
      () => onboardingMetadata(tenant, connectionId).staticSummary,
    );
    await condition(allHandlersFinished);
    return {
      tenant,
      connectionId,
      events: { ...events, byType: { ...events.byType } },
      endedBy,
      waitedMs,
      // Status, error code and session id only: identity data and attachments stay with the child.
      ...(outcome && {
        verification: {
          ...verification,
          status: outcome.status,
          ...(outcome.errorCode !== undefined && { errorCode: outcome.errorCode }),
          ...(outcome.sessionId !== undefined && { sessionId: outcome.sessionId }),
        },
      }),
    };
  };

  const carry = (verifying?: { waitedMs: number; waitUntil: number }) =>
    continueAsNew<typeof onboarding>({
      ...input,
      carried: { startedAt, deadline, events, keys: [...keys], ...(verifying ? { verifying } : {}) },
    });

  // What the connection took before this onboarding ran counts too (a repeat is absorbed), and
  // what its last ended run counted.
  if (countsEarlierEvents) {
    try {
      const before: Awaited<ReturnType<typeof eventsBeforeOnboarding>> = countsEarlierRuns
        ? await eventsBeforeOnboarding({ tenant, connectionId, runId: workflowInfo().runId })
        : { events: await connectionEventsSoFar({ tenant, connectionId }) };
      addEventCounts(events, before.earlierRun);
      // Its `new_connection` (sent once) may be what the onboarding now waits for: counted, so seen.
      if (before.earlierRunUnread)
        countGiveUp({ kind: 'onboarding', step: "reading the connection's earlier onboarding run" });
      for (const seen of before.events)
        record({
          tenant,
          connectionId,
          messageType: seen.messageType,
          objectId: seen.objectId,
          receivedAt: seen.receivedAt,
        });
    } catch (error) {
      if (isCancellation(error)) throw error;
      // An awaited event the connection took before is missed: counted, so it is seen.
      countGiveUp({ kind: 'onboarding', step: "reading the connection's earlier events" });
      log.warn("the connection's earlier events could not be read: only those from now on count", {
        failureType: activityFailureType(error),
      });
    }
  }

  // Waiting: one durable timer to the deadline, woken by every event; days cost nothing.
  const showWaiting = (headline: string) =>
    showDetails(
      markdownLines([
        headline,
        `Deadline: ${new Date(deadline).toISOString()}; ${events.total} events so far`,
      ]),
      () => onboardingMetadata(tenant, connectionId).staticSummary,
    );
  while (!verificationBegun && missing().length > 0) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      if (!graceTaken && lateDeliveriesWaited) {
        graceTaken = true;
        showWaiting(
          `**past its deadline**, waiting ${LATE_DELIVERY_GRACE_MS / 60_000} minutes for ${missing().join(', ')} handed over late`,
        );
        if (
          await condition(() => missing().length === 0, LATE_DELIVERY_GRACE_MS, {
            summary: 'for events handed over late',
          })
        )
          break;
      }
      waitedMs = Date.now() - startedAt;
      return await summary('timed-out');
    }
    showWaiting(`**waiting** for ${missing().join(', ')}`);
    await condition(() => missing().length === 0 || historyLarge(), remaining, {
      summary: 'until the deadline',
    });
    if (missing().length > 0 && historyLarge()) {
      await condition(allHandlersFinished);
      return await carry();
    }
  }
  waitedMs = carried?.verifying?.waitedMs ?? Date.now() - startedAt;

  // Verifying: started once (a new run carries the wait on), abandoned so this workflow can
  // continue as new while it runs; its clean-up tells the ending (`reportTo`).
  stage = 'verifying';
  let waitUntil = carried?.verifying?.waitUntil;
  if (waitUntil === undefined) {
    verificationBegun = true;
    let prepared: VerificationInput;
    try {
      prepared = await prepareOnboardingVerification({
        tenant,
        connectionId,
        verification: input.verification,
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (activityFailureType(error) === 'InvalidOnboardingInput') throw error;
      // Its reference's record says the verification ran (the workflow may be gone).
      if (activityFailureType(error) === ONBOARDING_ALREADY_VERIFIED)
        throw ApplicationFailure.create({
          type: ONBOARDING_ALREADY_VERIFIED,
          message: `this connection's verification has run already: see ${verification.workflowId}`,
          nonRetryable: true,
        });
      throw gaveUp({
        kind: 'onboarding',
        step: 'preparing the verification',
        reason: describeFailure(error),
        next: 'check the store, then start the onboarding again (OnboardingClient.start)',
      });
    }
    try {
      await startChild(verificationSession, {
        workflowId: verification.workflowId,
        args: [{ ...prepared, reportTo: workflowInfo().workflowId }],
        ...verificationMetadata(prepared),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        // As a client start: a reference that already ran is refused, never a second session.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        ...(prepared.finalUrl ? { memo: { [FINAL_URL_MEMO]: prepared.finalUrl } } : {}),
      });
    } catch (error) {
      // Started again by hand after it verified: a reference has one verification, ever. The
      // key prepared for the start that was refused sealed nothing anyone keeps.
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        await destroyDataKey(prepared.dataKeyId).catch(() => undefined);
        throw ApplicationFailure.create({
          type: ONBOARDING_ALREADY_VERIFIED,
          message: `this connection's verification has run already: see ${verification.workflowId}`,
          nonRetryable: true,
        });
      }
      throw error;
    }
    waitUntil = Date.now() + prepared.timeout + VERIFICATION_GRACE_MS;
  }
  try {
    for (;;) {
      const remaining = waitUntil - Date.now();
      if (ending === undefined && remaining <= 0)
        throw gaveUp({
          kind: 'onboarding',
          step: 'waiting for the verification',
          reason: `${verification.workflowId} did not report its ending in time`,
          next: `its verification may still run or may have ended without telling: see \`idv status ${reference}\` (a connection is verified once; its outcome is there)`,
        });
      showDetails(
        markdownLines([
          `**verifying**: waiting for ${verification.workflowId} to end`,
          `Gives up at ${new Date(waitUntil).toISOString()}`,
        ]),
        () => onboardingMetadata(tenant, connectionId).staticSummary,
      );
      await condition(() => ending !== undefined || historyLarge(), Math.max(1, remaining), {
        summary: 'until the verification reports its ending',
      });
      if (ending !== undefined) return await summary('verified', ending);
      if (historyLarge()) {
        await condition(allHandlersFinished);
        if (ending === undefined) return await carry({ waitedMs, waitUntil });
      }
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // The verification reported its ending already: the onboarding ends with it.
    if (ending !== undefined && patched(REPORTED_ENDING_KEPT)) {
      const reported = ending;
      return await CancellationScope.nonCancellable(() => summary('verified', reported));
    }
    // Cancelled: the verification is cancelled too, and its clean-up (the session cancelled at
    // the service) waited for, before this ends cancelled.
    await CancellationScope.nonCancellable(async () => {
      await getExternalWorkflowHandle(verification.workflowId)
        .cancel()
        .catch(() => undefined);
      await condition(() => ending !== undefined, CANCEL_GRACE_MS, {
        summary: 'until the cancelled verification reports its ending',
      });
    });
    // Reported meanwhile as a success (the cancel came after the person was verified, while its
    // clean-up ran): that is the onboarding's outcome. Any other ending may be the cancel's own
    // doing (a cancel answered 404, results cut short), and the cancel stands.
    const reported = ending;
    if (reported?.status === 'succeeded' && patched(REPORTED_ENDING_KEPT))
      return await CancellationScope.nonCancellable(() => summary('verified', reported));
    throw error;
  }
}

setWorkflowOptions({ versioningBehavior: agentPlatformVersioning.onboarding }, onboarding);

/**
 * The progress an onboarding run answers before its input is checked (or once it refused it):
 * what the input gives, read as anything (it may break every rule), with the defaults the run
 * would take. A run continued into answers its carried counts and deadline.
 */
function progressFromInput(
  input: unknown,
  firstTaskAtMs: number,
  stage: 'checking' | 'refused',
): OnboardingProgress {
  const given = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const carried = (
    typeof given.carried === 'object' && given.carried !== null ? given.carried : {}
  ) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const time = (value: unknown) =>
    Number.isSafeInteger(value) && Math.abs(value as number) <= MAX_DATE_MS ? (value as number) : undefined;
  const events: OnboardingEventCounts = { total: 0, duplicates: 0, ignored: 0, byType: {} };
  addEventCounts(events, carried.events as OnboardingEventCounts | undefined);
  const startedAt = time(carried.startedAt) ?? firstTaskAtMs;
  const timeoutMs = time(given.timeoutMs) ?? onboardingLimits.timeout.defaultMs;
  const deadline = time(carried.deadline) ?? time(startedAt + timeoutMs) ?? startedAt;
  const waitFor = Array.isArray(given.waitFor)
    ? given.waitFor.filter((type): type is AgentMessageType =>
        agentMessageTypes.includes(type as AgentMessageType),
      )
    : onboardingLimits.waitFor;
  return {
    tenant: text(given.tenant),
    connectionId: text(given.connectionId),
    stage,
    waitingFor: waitFor.filter((type) => !events.byType[type]),
    events,
    deadline: new Date(deadline).toISOString(),
    startedAt: new Date(startedAt).toISOString(),
  };
}
