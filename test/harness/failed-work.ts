import { type Client } from '@temporalio/client';
import { type FailedWork, listFailedWork } from '../../agent-platform/client/failed-work';
import { eventually } from './eventually';

/** What `idv list --failed` says of `workflowId`, once Temporal's visibility lists it. */
export function listedAsFailed(client: Client, taskQueue: string, workflowId: string): Promise<FailedWork> {
  return eventually(
    async () => (await listFailedWork(client, { taskQueue })).find((work) => work.workflowId === workflowId),
    `${workflowId} listed as failed work`,
  );
}
