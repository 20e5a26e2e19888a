import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { VerificationActivities } from '../activities/index';
import { agentMessageTypes, deliveryKey } from '../domain/agent-deliveries';
import {
  type OnboardingEventCounts,
  type OnboardingInput,
  onboardingInputProblems,
  onboardingLimits,
  onboardingReference,
} from '../domain/onboarding';
import { type SealedVerificationOutcome } from '../domain/verification';
import { type AgentEvent, agentEventSignal } from './agent-messages';
import {
  type OnboardingProgress,
  onboardingProgressQuery,
  type OnboardingSummary,
} from './onboarding-messages';
import { runVerification, verificationWorkflowId } from './run-verification';

const { prepareOnboardingVerification } = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Deliveries remembered for deduplication (as agentConnection): far more than one onboarding sees. */
const MAX_KEYS_REMEMBERED = 2_000;

/**
 * The onboarding of one connection of a tenant (`idv-onboarding-<tenant>-<connectionId>`), started
 * by the receiver's signal-with-start or by `OnboardingClient`: it waits, days if need be, until
 * every `waitFor` event has come, runs the person's verification as its child and ends with a
 * summary of counts and the outcome, never the person's data. The pattern a business copies:
 * signals only record, the main flow only waits and decides.
 */
export async function onboarding(input: OnboardingInput): Promise<OnboardingSummary> {
  // Refused at once: bad settings would otherwise wait days before failing in the verification.
  const problems = onboardingInputProblems(input);
  if (problems.length > 0)
    throw ApplicationFailure.create({
      type: 'InvalidOnboardingInput',
      message: `invalid onboarding input: ${problems.join('; ')}`,
      nonRetryable: true,
    });
  const { tenant, connectionId, carried } = input;
  const waitFor = input.waitFor ?? onboardingLimits.waitFor;
  const maxHistoryEvents = input.maxHistoryEvents ?? onboardingLimits.maxHistoryEvents.default;
  // Carried across runs: the deadline and the wait are the connection's, not one run's.
  const startedAt = carried?.startedAt ?? Date.now();
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
  let stage: OnboardingProgress['stage'] = 'waiting';
  let verificationBegun = false;
  let waitedMs = 0;
  const missing = () => waitFor.filter((type) => !events.byType[type]);

  // Handlers first: a signal-with-start's signal is delivered before the main flow runs.
  setHandler(agentEventSignal, (event: AgentEvent) => {
    // Not this connection's, or not an event (a signal sent by hand): counted, nothing else.
    const ours =
      event?.tenant === tenant &&
      event.connectionId === connectionId &&
      agentMessageTypes.includes(event.messageType) &&
      typeof event.objectId === 'string';
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
  });
  setHandler(onboardingProgressQuery, () => ({
    tenant,
    connectionId,
    stage,
    waitingFor: missing(),
    events: { ...events, byType: { ...events.byType } },
    deadline: new Date(deadline).toISOString(),
    ...(verificationBegun && { verification }),
  }));

  const historyLarge = () => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= maxHistoryEvents;
  };
  const summary = async (
    endedBy: OnboardingSummary['endedBy'],
    outcome?: SealedVerificationOutcome,
  ): Promise<OnboardingSummary> => {
    stage = 'done';
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

  // Waiting: one durable timer to the deadline, woken by every event; days cost nothing.
  while (missing().length > 0) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      waitedMs = Date.now() - startedAt;
      return await summary('timed-out');
    }
    await condition(() => missing().length === 0 || historyLarge(), remaining);
    if (missing().length > 0 && historyLarge()) {
      // Only while waiting: a child cannot be carried into a new run.
      await condition(allHandlersFinished);
      return await continueAsNew<typeof onboarding>({
        ...input,
        carried: { startedAt, deadline, events, keys: [...keys] },
      });
    }
  }
  waitedMs = Date.now() - startedAt;

  // Verifying: a child, so a cancelled onboarding cancels it and waits for its clean-up (the
  // session cancelled at the service) before ending cancelled itself. Events still count meanwhile.
  stage = 'verifying';
  verificationBegun = true;
  const prepared = await prepareOnboardingVerification({
    tenant,
    connectionId,
    verification: input.verification,
  });
  let outcome: SealedVerificationOutcome;
  try {
    outcome = await runVerification(prepared);
  } catch (error) {
    // Its verification cancelled on its own (by hand, in the web UI) while the onboarding was not:
    // an outcome like any other, reported.
    if (
      error instanceof ChildWorkflowFailure &&
      error.cause instanceof CancelledFailure &&
      !CancellationScope.current().consideredCancelled
    )
      return await summary('verified', { status: 'cancelled' });
    // Started again by hand after it verified: a reference has one verification, ever.
    if (error instanceof WorkflowExecutionAlreadyStartedError)
      throw ApplicationFailure.create({
        type: 'OnboardingAlreadyVerified',
        message: `this connection's verification has run already: see ${verification.workflowId}`,
        nonRetryable: true,
      });
    throw error;
  }
  return await summary('verified', outcome);
}
