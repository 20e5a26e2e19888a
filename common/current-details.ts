import { setCurrentDetails, workflowInfo } from '@temporalio/workflow';

/**
 * Sets the running workflow's current details (Temporal's user metadata, shown by the UI and
 * `idv describe`). A run continued as new has no static summary (continue-as-new carries none,
 * and the SDK cannot set one on it), so its details lead with the summary instead.
 */
export function showDetails(details: string, summary: () => string): void {
  const continued = workflowInfo().continuedFromExecutionRunId !== undefined;
  setCurrentDetails(continued ? `${summary()}  \n${details}` : details);
}
