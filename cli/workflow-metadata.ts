import {
  type Client,
  isGrpcDeadlineError,
  isGrpcServiceError,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { IdvSummary } from '../common/search-attributes';
import { detailsAfterSummary } from '../common/user-metadata';
import { grpcStatus } from '../common/grpc-status';

/** The SDK's built-in query that answers a workflow's current details (Temporal's user metadata). */
const METADATA_QUERY = '__temporal_workflow_metadata';
/**
 * How long a worker's answer is waited for: a worker answers in milliseconds, while a workflow
 * whose workers are gone keeps a query waiting for half a minute.
 */
const QUERY_WAIT_MS = 5_000;

/** What a worker answered, or why there is no answer (said to the operator as is). */
export type WorkerAnswer<T> = { value: T } | { missing: string };

/** When the answers a command asks for now are given up: one bound for all its questions. */
export function workerDeadline(): number {
  return Date.now() + QUERY_WAIT_MS;
}

/**
 * Asks a worker about the workflow `description` describes, until `deadline` (see
 * {@link workerDeadline}); the client must retry no call past its deadline (as the commands'
 * connection does). A workflow whose start is delayed has no worker to ask yet.
 */
export async function askWorker<T>(
  client: Client,
  description: WorkflowExecutionDescription,
  ask: () => Promise<T>,
  deadline: number,
): Promise<WorkerAnswer<T>> {
  const startsAt = description.executionTime;
  if (description.status.name === 'RUNNING' && startsAt && startsAt.getTime() > Date.now())
    return { missing: `its start is delayed until ${startsAt.toISOString()}` };
  const late: WorkerAnswer<T> = { missing: `no worker answered within ${QUERY_WAIT_MS / 1000} s` };
  if (Date.now() >= deadline) return late;
  try {
    return { value: await client.connection.withDeadline(deadline, ask) };
  } catch (error) {
    if (isGrpcDeadlineError(error)) return late;
    // While one query waits for a worker, the server refuses others to the same workflow.
    const cause = error instanceof Error ? error.cause : undefined;
    let why = '';
    if (isGrpcServiceError(cause)) {
      const code: number = cause.code;
      // A call still waiting at its deadline may come back cancelled rather than timed out.
      if (code === grpcStatus.CANCELLED && Date.now() >= deadline) return late;
      if (code === grpcStatus.RESOURCE_EXHAUSTED)
        return { missing: `the server refused the query: ${cause.details}` };
      // The client's wrapper says only which call failed; the server's status says why.
      why = ` (gRPC status ${code}: ${cause.details})`;
    }
    return { missing: `the query failed: ${error instanceof Error ? error.message : String(error)}${why}` };
  }
}

/** A workflow's user metadata as the Temporal UI shows it: summary, details, current details. */
export interface WorkflowMetadataView {
  summary?: string;
  details?: string;
  currentDetails?: string;
  /** Why there are no current details (see {@link askWorker}). */
  currentDetailsMissing?: string;
}

/**
 * The summary and details its start set (a run continued as new has none: the summary of its
 * search attribute, the details of its first run), and the details the workflow keeps current,
 * asked of a worker (see {@link askWorker}), without the summary a continued run leads them with.
 * Decoded with the client's data converter.
 */
export async function workflowMetadata(
  client: Client,
  handle: WorkflowHandle,
  description: WorkflowExecutionDescription,
  deadline: number,
): Promise<WorkflowMetadataView> {
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId;
  const continued = !!firstRunId && firstRunId !== description.runId;
  const [ownSummary, ownDetails, firstRun, current] = await Promise.all([
    description.staticSummary(),
    description.staticDetails(),
    continued
      ? client.workflow
          .getHandle(handle.workflowId, firstRunId)
          .describe()
          .catch(() => undefined)
      : undefined,
    askWorker(client, description, () => handle.query<{ currentDetails?: string }>(METADATA_QUERY), deadline),
  ]);
  // A continued run keeps the summary as its search attribute, also once its first run is gone.
  const summary =
    ownSummary ?? description.typedSearchAttributes.get(IdvSummary) ?? (await firstRun?.staticSummary());
  const details = ownDetails ?? (await firstRun?.staticDetails());
  const currentDetails =
    'value' in current && current.value.currentDetails
      ? summary
        ? detailsAfterSummary(summary, current.value.currentDetails)
        : current.value.currentDetails
      : undefined;
  return {
    ...(summary ? { summary } : {}),
    ...(details ? { details } : {}),
    ...(currentDetails ? { currentDetails } : {}),
    ...('missing' in current ? { currentDetailsMissing: current.missing } : {}),
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
