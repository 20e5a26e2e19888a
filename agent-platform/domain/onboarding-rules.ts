import { type AgentMessageType, agentMessageTypes } from '../../common/agent-message-types';
import { ONBOARDING_VERIFICATION_PREFIX } from '../../common/workflow-ids';

// Zod-free, for workflow code (onboarding.ts holds the input schema).

const DAY = 86_400_000;

/** Bounds and defaults of an onboarding, checked by the client, the settings file and the workflow alike. */
export const onboardingLimits = {
  /** How long it waits for its events. */
  timeout: { minMs: 60_000, maxMs: 90 * DAY, defaultMs: 7 * DAY },
  /** It continues as new past this many history events while it waits. */
  maxHistoryEvents: { min: 20, max: 20_000, default: 2_000 },
  /** What it waits for when not told. */
  waitFor: ['new_connection'] as AgentMessageType[],
} as const;

/** The reference of an onboarding's verification (its workflow ID is `idv-<reference>`). */
export function onboardingReference(tenant: string, connectionId: string): string {
  return `${ONBOARDING_VERIFICATION_PREFIX}${tenant}:${connectionId}`;
}

/** Events an onboarding has seen (counts only: ids stay out of its summary). */
export interface OnboardingEventCounts {
  /** Events recorded, repeats not counted. */
  total: number;
  /** Repeated deliveries absorbed (same message type and object id). */
  duplicates: number;
  /** Signals that were not an event of this connection: counted, nothing else. */
  ignored: number;
  /** Recorded events by message type (types not seen are absent). */
  byType: Partial<Record<AgentMessageType, number>>;
}

/**
 * Adds `more` (an earlier run's counts, read back from it) to `counts`: only whole non-negative
 * numbers and known message types, so what is carried on stays within the carried input's check.
 */
export function addEventCounts(counts: OnboardingEventCounts, more: OnboardingEventCounts | undefined): void {
  const whole = (value: unknown): number =>
    Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : 0;
  counts.total += whole(more?.total);
  counts.duplicates += whole(more?.duplicates);
  counts.ignored += whole(more?.ignored);
  for (const type of agentMessageTypes) {
    const added = whole(more?.byType?.[type]);
    if (added > 0) counts.byType[type] = (counts.byType[type] ?? 0) + added;
  }
}

/** What an onboarding carries into its next run when it continues as new. */
export interface CarriedOnboarding {
  /** Workflow time of the first run's start (epoch ms): the wait is the connection's, not the run's. */
  startedAt: number;
  /** When the wait ends (epoch ms). */
  deadline: number;
  events: OnboardingEventCounts;
  /** Dedupe keys (`messageType:objectId`), oldest first. */
  keys: string[];
  /** Once its verification began: how long it waited for the events, and until when it waits for the ending (epoch ms). */
  verifying?: { waitedMs: number; waitUntil: number };
}
