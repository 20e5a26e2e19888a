import { type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';

/** The SDK's built-in query that answers a workflow's current details (Temporal's user metadata). */
const METADATA_QUERY = '__temporal_workflow_metadata';

/** A workflow's user metadata as the Temporal UI shows it: summary, details, current details. */
export interface WorkflowMetadataView {
  summary?: string;
  details?: string;
  currentDetails?: string;
}

/**
 * The summary and details its start set, and the details the workflow keeps current (asked of a
 * worker: absent when none answers). Decoded with the client's data converter.
 */
export async function workflowMetadata(
  handle: WorkflowHandle,
  description: WorkflowExecutionDescription,
): Promise<WorkflowMetadataView> {
  const [summary, details, current] = await Promise.all([
    description.staticSummary(),
    description.staticDetails(),
    handle.query<{ currentDetails?: string }>(METADATA_QUERY).catch(() => undefined),
  ]);
  return {
    ...(summary ? { summary } : {}),
    ...(details ? { details } : {}),
    ...(current?.currentDetails ? { currentDetails: current.currentDetails } : {}),
  };
}

/** The view as indented lines under a heading, Markdown line breaks dropped. */
export function metadataLines(view: WorkflowMetadataView): string[] {
  const block = (name: string, text: string | undefined) =>
    text === undefined
      ? []
      : [`${name}:`, ...text.split(/ {2}\n|\n/).map((line) => `  ${line.replaceAll('**', '')}`)];
  return [
    ...(view.summary ? [`summary:   ${view.summary}`] : []),
    ...block('details', view.details),
    ...block('now', view.currentDetails),
  ];
}
