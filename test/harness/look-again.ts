import { type Client, type WorkflowHandle } from '@temporalio/client';
import {
  type RedactionArgs,
  type RedactionReport,
  type SessionRedactionWorkflow,
  verificationWorkflowTypes,
} from '../../verification/shared/workflows';

/**
 * Replaces a scheduled look again (it waits an hour for its start) by the same run started now,
 * as Temporal starts it once its delay is over; resolves to its report. (The dev server cannot
 * skip a start delay.)
 */
export async function lookAgainNow(
  stack: { client: Client; taskQueue: string },
  scheduled: WorkflowHandle<SessionRedactionWorkflow>,
  args: RedactionArgs,
): Promise<RedactionReport> {
  await scheduled.terminate('started at once in its place');
  return await stack.client.workflow.execute<SessionRedactionWorkflow>(verificationWorkflowTypes.redaction, {
    taskQueue: stack.taskQueue,
    workflowId: scheduled.workflowId,
    args: [args],
  });
}
