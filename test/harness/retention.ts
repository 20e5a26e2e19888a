import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { eventually } from './eventually';

/** A run still found this long after its deletion was asked is asked again (the call is idempotent). */
const ASK_AGAIN_MS = 15_000;

/**
 * Deletes every run of a workflow, as the namespace's retention would, and waits until Temporal no
 * longer finds it (the server deletes a run once its queues have recorded the run's close task
 * done, every second in the tests' server: global-setup; a request that came while the server was
 * still closing the run, under load, is asked again).
 */
export async function deleteAsRetentionWould(client: Client, workflowId: string): Promise<void> {
  const asked = new Map<string, number>();
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
      const askedAt = asked.get(description.runId);
      if (askedAt === undefined || Date.now() - askedAt >= ASK_AGAIN_MS) {
        asked.set(description.runId, Date.now());
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
