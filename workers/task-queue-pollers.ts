import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const { TaskQueueType } = temporal.api.enums.v1;

/**
 * A worker counts while its last poll of the task queue is this recent. An idle worker's long
 * poll stays open about a minute without a new access, so this is longer; a worker that stopped
 * keeps counting until then (the others' parts stay small a while, never too large).
 */
export const POLLER_LIVE_MS = 120_000;
/** Partitions asked for their pollers: Temporal's default number of partitions of a task queue. */
const PARTITIONS = 4;

/** A worker polling the task queue, as Temporal lists it. */
export interface Poller {
  identity: string;
  /** When it last polled (ms since the epoch, Temporal's clock). */
  lastAccessMs: number;
  /** The build it polls for (Worker Versioning), if versioned. */
  deployment?: { name: string; buildId: string };
}

/**
 * Every worker polling the task queue's activities (or its workflow tasks), of every build, as
 * its first partitions list them: each poll goes to a partition at random (an idle one may be
 * forwarded to the root), so a live worker is listed within {@link POLLER_LIVE_MS}. (The enhanced
 * answer, across partitions, came back empty every other time on the dev server.)
 */
export async function taskQueuePollers(
  client: Client,
  where: { namespace: string; taskQueue: string; type?: 'activity' | 'workflow' },
): Promise<Poller[]> {
  const { namespace, taskQueue } = where;
  const taskQueueType =
    where.type === 'workflow'
      ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
      : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;
  const names = [
    taskQueue,
    ...Array.from({ length: PARTITIONS - 1 }, (_, i) => `/_sys/${taskQueue}/${i + 1}`),
  ];
  const answers = await Promise.all(
    names.map((name) =>
      client.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name },
        taskQueueType,
      }),
    ),
  );
  return answers.flatMap((answer) =>
    answer.pollers.flatMap((poller) =>
      poller.identity
        ? [
            {
              identity: poller.identity,
              lastAccessMs:
                Number(poller.lastAccessTime?.seconds ?? 0) * 1_000 +
                Math.floor((poller.lastAccessTime?.nanos ?? 0) / 1e6),
              ...(poller.deploymentOptions?.deploymentName && poller.deploymentOptions.buildId
                ? {
                    deployment: {
                      name: poller.deploymentOptions.deploymentName,
                      buildId: poller.deploymentOptions.buildId,
                    },
                  }
                : {}),
            },
          ]
        : [],
    ),
  );
}
