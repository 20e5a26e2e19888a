import { defineQuery } from '@temporalio/workflow';
import { type AgentMessageType } from '../domain/agent-deliveries';
import { type OnboardingEventCounts } from '../domain/onboarding';
import { type VerificationStatus } from '../../verification/domain/outcome';

// Names are stable API, like those of messages.ts. The onboarding also takes the `agentEvent`
// signal of agent-messages.ts, the same one agentConnection takes.

/** The verification an onboarding runs as its child. */
export interface OnboardingVerificationRef {
  reference: string;
  /** `idv-<reference>`: IdvClient.getVerification(reference) follows it. */
  workflowId: string;
}

/** What the `progress` query answers. */
export interface OnboardingProgress {
  tenant: string;
  connectionId: string;
  /**
   * `checking`: the run checks its input, in its first moments (the other fields say what the
   * input gives: a run continued into answers its carried counts and deadline); `refused`: it
   * failed that check and ended; then `waiting`, `verifying`, `done`. `stopped`: the run ended
   * without its summary (see `stoppedAs`: terminated from outside, past Temporal's run timeout,
   * failed or cancelled) in the stage the other fields describe; only `OnboardingClient.progress`
   * answers it (the query itself answers the stage the run stopped in).
   */
  stage: 'checking' | 'refused' | 'waiting' | 'verifying' | 'done' | 'stopped';
  /** How a `stopped` run ended. */
  stoppedAs?: 'terminated' | 'timed-out' | 'failed' | 'cancelled';
  /** The message types still awaited (empty once it verifies). */
  waitingFor: AgentMessageType[];
  events: OnboardingEventCounts;
  /** When the wait for the events ends (ISO). */
  deadline: string;
  /** When the onboarding began (its first run; ISO). Absent in answers of builds before it. */
  startedAt?: string;
  /** Once the verification has begun. */
  verification?: OnboardingVerificationRef;
}

/** What an onboarding ends with: counts and an outcome, never identity data or attachments. */
export interface OnboardingSummary {
  tenant: string;
  connectionId: string;
  events: OnboardingEventCounts;
  /** `verified`: the verification ran (its status says how it went); `timed-out`: the events did not all come. */
  endedBy: 'verified' | 'timed-out';
  /** How long it waited for the events. */
  waitedMs: number;
  verification?: OnboardingVerificationRef & {
    status: VerificationStatus;
    errorCode?: string;
    sessionId?: string;
  };
}

/** Query: where an onboarding stands. */
export const onboardingProgressQuery = defineQuery<OnboardingProgress>('progress');
