import { type KeyringEntry, newKeyringEntry } from '../codec/keyring';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { type DataKeys } from '../codec/data-keys';
import { DEFAULT_KEY_ROTATION_MS } from './shared';
import { grpcStatus, grpcStatusOf } from '../common/grpc-status';

/** How often the keyring rotates its key-encryption key. */
export interface KeyringSettings {
  /**
   * A destroyed data key is gone from every copy of the store once the next rotation has run:
   * this is how long that may take at most (plus the rotation's own time). Each rotation
   * re-wraps every live data key.
   * @default 1 hour
   */
  rotateEveryMs: number;
  /**
   * How long a process uses what it learnt of the keyring before asking again; a rotation waits
   * three times this between making a key current and re-wrapping under it.
   * @default a twentieth of `rotateEveryMs`, from 0.2 to 30 s
   */
  refreshMs: number;
}

/** The default of {@link KeyringSettings.refreshMs}: a twentieth of the period, 0.2 to 30 s. */
function keyringRefreshMs(rotateEveryMs: number): number {
  return Math.min(30_000, Math.max(200, Math.round(rotateEveryMs / 20)));
}

/** When the keyring rotates, and how long a process may wrap under a key it learnt (plain JSON). */
export interface KeyringSchedule {
  rotateEveryMs: number;
  refreshMs: number;
}

/** What the keyring's activities need. */
export interface KeyringDeps {
  /** The data keys the keyring's keys wrap (re-wrapped at each rotation). */
  dataKeys: DataKeys;
  /** How often the keyring rotates. @default 1 hour */
  keyring?: Partial<KeyringSettings>;
}

/** The keyring's activities: its schedule, new keys, re-wrapping the store, deleting its old runs. */
export function keyringActivities(deps: KeyringDeps) {
  const rotateEveryMs = deps.keyring?.rotateEveryMs ?? DEFAULT_KEY_ROTATION_MS;
  const refreshMs = deps.keyring?.refreshMs ?? keyringRefreshMs(rotateEveryMs);
  return {
    /** The schedule of this worker's settings (no call). */
    keyringSchedule(): Promise<KeyringSchedule> {
      return Promise.resolve({ rotateEveryMs, refreshMs });
    },

    /** A new key-encryption key: 32 random bytes. */
    newKeyEncryptionKey(): Promise<KeyringEntry> {
      return Promise.resolve(newKeyringEntry(Date.now()));
    },

    /**
     * Re-wraps every live data key of the store that is not under the current key-encryption key;
     * a data key destroyed meanwhile is left destroyed. Resumes where a failed attempt stopped.
     */
    async rewrapDataKeys(args: { keys: KeyringEntry[]; currentId: string }): Promise<{ rewrapped: number }> {
      const context = Context.current();
      const resumed = context.info.heartbeatDetails as { after?: string; rewrapped?: number } | undefined;
      const keys = args.keys.map((key) => ({ id: key.id, key: Buffer.from(key.key, 'base64') }));
      return await deps.dataKeys.rewrapAll(keys, args.currentId, {
        ...(resumed?.after ? { after: resumed.after } : {}),
        progress: (after, rewrapped) =>
          context.heartbeat({ after, rewrapped: (resumed?.rewrapped ?? 0) + rewrapped }),
      });
    },

    /** Deletes the keyring's closed runs (they hold keys since retired), all but `keepRunId`. */
    async deleteEarlierRuns(args: {
      workflowId: string;
      keepRunId: string;
      previousRunId?: string;
    }): Promise<number> {
      const { client } = Context.current();
      const { namespace } = client.options;
      const runIds = new Set<string>(args.previousRunId ? [args.previousRunId] : []);
      await refusedForGood(async () => {
        for await (const run of client.workflow.list({
          query: `WorkflowId = '${args.workflowId.replace(/['\\]/g, '')}' AND ExecutionStatus != 'Running'`,
        }))
          runIds.add(run.runId);
        runIds.delete(args.keepRunId);
        for (const runId of runIds)
          await client.workflowService
            .deleteWorkflowExecution({ namespace, workflowExecution: { workflowId: args.workflowId, runId } })
            .catch((error: unknown) => {
              // Already gone (retention, or an earlier attempt).
              if (grpcStatusOf(error) !== grpcStatus.NOT_FOUND) throw error;
            });
      });
      return runIds.size;
    },

    /** How many live data keys (at most a few) are wrapped under another key-encryption key than `currentId`. */
    async liveKeysUnderOtherKeys(args: { currentId: string }): Promise<number> {
      return (await deps.dataKeys.wrappedElsewhere(args.currentId, 10)).length;
    },
  };
}

/**
 * Runs Temporal calls, failing for good (`TemporalRefused`, not retried) when Temporal refuses
 * them for good (no permission, a query it does not take): no retry changes that. The status is
 * read from a `workflowService` call's error and from the client's `ServiceError` alike.
 */
export async function refusedForGood(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const code = grpcStatusOf(error);
    if (
      code === grpcStatus.PERMISSION_DENIED ||
      code === grpcStatus.INVALID_ARGUMENT ||
      code === grpcStatus.UNIMPLEMENTED
    )
      throw ApplicationFailure.create({
        type: 'TemporalRefused',
        message: error instanceof Error ? error.message : String(error),
        nonRetryable: true,
      });
    throw error;
  }
}

/** Their type, for `proxyActivities<KeyringActivities>` in the keyring workflow. */
export type KeyringActivities = ReturnType<typeof keyringActivities>;
