import { setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import { detailsLedBySummary } from './user-metadata';

/**
 * Sets the running workflow's current details (Temporal's user metadata, shown by the UI and
 * `idv describe`); a run continued as new leads them with its summary (see `detailsLedBySummary`).
 */
export function showDetails(details: string, summary: () => string): void {
  const continued = workflowInfo().continuedFromExecutionRunId !== undefined;
  setCurrentDetails(continued ? detailsLedBySummary(summary(), details) : details);
}
