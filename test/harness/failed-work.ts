import { type Client } from '@temporalio/client';
import { type FailedWork, listFailedWork } from '../../agent-platform/client/failed-work';
import { eventually } from './eventually';

/**
 * What `idv list --failed` says of `workflowId`, once Temporal's visibility lists it; of its run
 * in `state` when given (an earlier run of the same ID may be listed too, and first).
 */
export function listedAsFailed(
  client: Client,
  taskQueue: string,
  workflowId: string,
  state?: FailedWork['state'],
): Promise<FailedWork> {
  return eventually(
    async () =>
      (await listFailedWork(client, { taskQueue })).find(
        (work) => work.workflowId === workflowId && (state === undefined || work.state === state),
      ),
    `${workflowId} listed as failed work${state ? ` (${state})` : ''}`,
  );
}
