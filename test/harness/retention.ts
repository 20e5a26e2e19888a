import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { eventually } from './eventually';

/**
 * Deletes every run of a workflow, as the namespace's retention would, and waits until Temporal no
 * longer finds it (the server deletes a run about half a minute after it is asked to).
 */
export async function deleteAsRetentionWould(client: Client, workflowId: string): Promise<void> {
  const asked = new Set<string>();
  await eventually(
    async () => {
      const description = await client.workflow
        .getHandle(workflowId)
        .describe()
        .catch((error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return undefined;
          throw error;
        });
      if (!description) return true;
      if (!asked.has(description.runId)) {
        asked.add(description.runId);
        await client.workflowService.deleteWorkflowExecution({
          namespace: client.options.namespace,
          workflowExecution: { workflowId, runId: description.runId },
        });
      }
      return undefined;
    },
    `${workflowId} deleted`,
    180_000,
  );
}
