import { ApplicationFailure, metricMeter } from '@temporalio/workflow';
import { MAINTENANCE_GAVE_UP } from './failure-types';

/** The maintenance workflows, as the metric and `idv list --failed` name them. */
export type MaintenanceKind = 'sweep' | 'redaction' | 'registry' | 'migration' | 'onboarding' | 'keyring';

/** What a step that gave up tells: which, why, and what an operator does next. */
export interface GiveUp {
  kind: MaintenanceKind;
  step: string;
  reason: string;
  next: string;
}

/**
 * Counts a maintenance step that gave up in `idv_maintenance_failed{kind,step}` (nothing is
 * emitted on replay). Every bounded step that runs out ends here, so an operator sees it.
 */
export function countGiveUp(giveUp: Pick<GiveUp, 'kind' | 'step'>): void {
  metricMeter
    .createCounter('idv_maintenance_failed', 'steps', 'Maintenance steps that gave up, by kind and step')
    .add(1, { kind: giveUp.kind, step: giveUp.step });
}

/**
 * The failure a maintenance workflow ends with when a step gave up, counted: its message says
 * what gave up, why and what to do next (the web UI and `idv list --failed` show it).
 */
export function gaveUp(giveUp: GiveUp): ApplicationFailure {
  countGiveUp(giveUp);
  return ApplicationFailure.create({
    type: MAINTENANCE_GAVE_UP,
    message: `${giveUp.kind}: ${giveUp.step} gave up: ${giveUp.reason}. Next: ${giveUp.next}`,
    nonRetryable: true,
    details: [{ kind: giveUp.kind, step: giveUp.step, next: giveUp.next }],
  });
}
