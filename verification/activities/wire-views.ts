import { type IntegrationStep, type Session } from '../../api/identity/schemas/session';
import { normaliseSessionState, type NormalisedSessionState } from '../domain/session-status';
import { type NextStep } from '../domain/verification';

/** A step as workflows and callers see it (plain JSON, no access key). */
export function stepView(step: IntegrationStep): NextStep {
  return { method: step.method, content: step.content, refresh: step.refresh ?? null };
}

/** A session's state in one vocabulary, whichever API generation answered. */
export function stateOf(session: Session): NormalisedSessionState {
  return normaliseSessionState(session);
}
