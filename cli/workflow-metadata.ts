import { type Client, type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';

/** The SDK's built-in query that answers a workflow's current details (Temporal's user metadata). */
const METADATA_QUERY = '__temporal_workflow_metadata';
/**
 * How long the current details are waited for: a worker answers in milliseconds, while a closed
 * workflow whose workers are gone keeps a query waiting for half a minute.
 */
const QUERY_WAIT_MS = 5_000;

/** A workflow's user metadata as the Temporal UI shows it: summary, details, current details. */
export interface WorkflowMetadataView {
  summary?: string;
  details?: string;
  currentDetails?: string;
  /** Why there are no current details: no worker answered in time. */
  currentDetailsMissing?: string;
}

/**
 * The summary and details its start set (a run continued as new has none: its first run's), and
 * the details the workflow keeps current, asked of a worker for at most {@link QUERY_WAIT_MS}.
 * Decoded with the client's data converter.
 */
export async function workflowMetadata(
  client: Client,
  handle: WorkflowHandle,
  description: WorkflowExecutionDescription,
): Promise<WorkflowMetadataView> {
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId;
  const started =
    firstRunId && firstRunId !== description.runId
      ? await client.workflow
          .getHandle(handle.workflowId, firstRunId)
          .describe()
          .catch(() => description)
      : description;
  const [summary, details, current] = await Promise.all([
    started.staticSummary(),
    started.staticDetails(),
    client.connection
      .withDeadline(Date.now() + QUERY_WAIT_MS, () =>
        handle.query<{ currentDetails?: string }>(METADATA_QUERY),
      )
      .catch(() => undefined),
  ]);
  return {
    ...(summary ? { summary } : {}),
    ...(details ? { details } : {}),
    ...(current?.currentDetails
      ? { currentDetails: current.currentDetails }
      : current === undefined
        ? { currentDetailsMissing: `no worker answered within ${QUERY_WAIT_MS / 1000} s` }
        : {}),
  };
}

/** The view as indented lines under a heading, Markdown marks dropped. */
export function metadataLines(view: WorkflowMetadataView): string[] {
  const block = (name: string, text: string | undefined) =>
    text === undefined
      ? []
      : [`${name}:`, ...text.split(/ {2}\n|\n/).map((line) => `  ${line.replace(/\*\*|`/g, '')}`)];
  return [
    ...(view.summary ? [`summary:   ${view.summary}`] : []),
    ...block('details', view.details),
    ...block('now', view.currentDetails),
    ...(view.currentDetailsMissing ? [`now:       (${view.currentDetailsMissing})`] : []),
  ];
}
