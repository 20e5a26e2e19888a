import {
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import type { OrphanLook } from '../activities/cleanup-activities';
import { describeFailure } from './bounded-step';
import { gaveUp } from './maintenance';
import { lookForOrphansSignal } from './messages';

const { orphanSweepSchedule } = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '10 minutes',
});

export { orphanSweepWorkflowId } from './messages';

/** Input of {@link orphanSweep}. */
export interface OrphanSweepInput {
  verificationProfileId: string;
  /** Set by the sweep itself when it continues as new. */
  carried?: { coveredToMs?: number; failingSinceMs?: number; swept: number };
}

/** What a sweep did, when nothing was left to look for. */
export interface OrphanSweepSummary {
  verificationProfileId: string;
  /** Orphans swept over the sweep's life (cancelled if live, redacted, keys destroyed). */
  swept: number;
}

/** Events after which the sweep continues as new (each look writes a handful). */
const MAX_HISTORY_EVENTS = 2_000;

/**
 * The orphan sweep of one verification profile (`idv-orphans-<profile>`): sessions the service
 * created for create attempts whose answer never came, whenever it carried them out, and
 * sessions claimed for a verification that kept another (see `sweepOrphans`). It looks as long
 * as anything may still land (the horizon after the latest unanswered attempt) or an attempt is
 * under way, more rarely while it finds nothing, and at once when a verification asks
 * (`lookForOrphans`). Looks that fail for a whole horizon give up visibly. Started (or signalled)
 * by any verification that may have left an orphan; one sweep serves every verification of the
 * profile, so the service's sessions are listed once, not once per verification.
 */
export async function orphanSweep(input: OrphanSweepInput): Promise<OrphanSweepSummary> {
  const { verificationProfileId } = input;
  let lookRequested = false;
  setHandler(lookForOrphansSignal, () => {
    lookRequested = true;
  });
  const schedule = await orphanSweepSchedule();
  const { sweepOrphans } = proxyActivities<VerificationActivities>({
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '30 seconds',
    scheduleToCloseTimeout: Math.min(10 * 60_000, schedule.giveUpAfterMs),
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let coveredToMs = input.carried?.coveredToMs;
  let failingSinceMs = input.carried?.failingSinceMs;
  let swept = input.carried?.swept ?? 0;
  let waitMs = schedule.lookEveryMs;
  for (;;) {
    lookRequested = false;
    const lookStartedMs = Date.now();
    let look: OrphanLook | undefined;
    try {
      look = await sweepOrphans({
        verificationProfileId,
        ...(coveredToMs === undefined ? {} : { coveredToMs }),
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      failingSinceMs ??= lookStartedMs;
      if (Date.now() - failingSinceMs >= schedule.giveUpAfterMs)
        throw gaveUp({
          kind: 'sweep',
          step: 'looking for orphans',
          reason: describeFailure(error),
          next: `sessions may be left live or holding data at the service: once it answers again, start the sweep with \`idv sweep ${verificationProfileId}\``,
        });
    }
    if (look) {
      failingSinceMs = undefined;
      coveredToMs = look.coveredToMs;
      swept += look.redacted.length;
      if (!look.open && !lookRequested) return { verificationProfileId, swept };
      // Orphans found: they come in bursts, so look again soon; else more rarely.
      waitMs =
        look.redacted.length > 0 ? schedule.lookEveryMs : Math.min(waitMs * 2, schedule.maxLookEveryMs);
    }
    await condition(() => lookRequested, look ? waitMs : schedule.lookEveryMs);
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= MAX_HISTORY_EVENTS) {
      await condition(allHandlersFinished);
      return await continueAsNew<typeof orphanSweep>({
        verificationProfileId,
        carried: {
          ...(coveredToMs === undefined ? {} : { coveredToMs }),
          ...(failingSinceMs === undefined ? {} : { failingSinceMs }),
          swept,
        },
      });
    }
  }
}
