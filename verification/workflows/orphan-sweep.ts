import { showDetails } from '../../common/current-details';
import { orphanSweepMetadata } from '../shared/metadata';
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import type { OrphanLook } from '../activities/cleanup-activities';
import type { CreationToClose } from '../shared/messages';
import type { OrphanSchedule } from '../activities/orphan-settings';
import { describeFailure } from '../../common/bounded-step';
import { countGiveUp, gaveUp } from '../../common/maintenance';
import { orphanSchedule } from './activity-proxies';
import { startCreationClose } from './orphan-hand-offs';
import { markdownLines } from '../../common/user-metadata';
import { lookForOrphansSignal } from '../shared/messages';
import { type OrphanSweepInput, type OrphanSweepSummary } from '../shared/workflows';
import { verificationVersioning } from '../shared/workflows';
import { setWorkflowOptions } from '@temporalio/workflow';

/** Events after which the sweep continues as new (each look writes a handful). */
const MAX_HISTORY_EVENTS = 2_000;
/**
 * Creations to close a sweep holds itself at most, in its list and in the look under way (each a
 * workflow ID and its ending, carried across continue-as-new); each one past them goes to a
 * workflow of its own (`creationClose`).
 */
const MAX_TO_CLOSE = 1_000;

/**
 * The patch under which a close handed to a sweep whose list is full starts a `creationClose`
 * (runs of release 1.0.0 dropped it, so its creation stayed open).
 */
const CLOSES_PAST_THE_LIST_HANDED_ON = 'closes-past-the-list-handed-on';

/**
 * The orphan sweep of one verification profile (`idv-orphans-<profile>`): sessions the service
 * created for create attempts whose answer never came, whenever it carried them out, and
 * sessions claimed for a verification that kept another (see `sweepOrphans`). It looks as long
 * as anything may still land (the horizon after the latest unanswered attempt), an attempt is
 * under way or an orphan is left to end, more rarely while it finds nothing, and at once when a
 * verification asks (`lookForOrphans`, which may hand it a creation to close). Looks that fail,
 * or leave orphans the service will not end or redact, for a whole horizon give up visibly. One
 * sweep serves every verification of the profile, so the service's sessions are listed once,
 * not once per verification.
 */
export async function orphanSweep(input: OrphanSweepInput): Promise<OrphanSweepSummary> {
  const { verificationProfileId } = input;
  let lookRequested = false;
  const toClose: CreationToClose[] = [...(input.toClose ?? [])];
  // Closes in the look under way, which go back to the list should it fail.
  let inLook = 0;
  // Closes are handed over by verifications of release 1.0.0 (later ones start a `creationClose`).
  setHandler(lookForOrphansSignal, async (ask) => {
    lookRequested = true;
    if (!ask?.close) return;
    if (toClose.length + inLook < MAX_TO_CLOSE) {
      toClose.push(ask.close);
    } else if (patched(CLOSES_PAST_THE_LIST_HANDED_ON)) {
      await startCreationClose(verificationProfileId, ask.close);
    } else if (toClose.length < MAX_TO_CLOSE) {
      // A run of release 1.0.0, replayed: it counted only the list, and dropped the rest.
      toClose.push(ask.close);
    } else {
      countGiveUp({ kind: 'sweep', step: 'holding a creation to close' });
    }
  });
  const show = (...parts: string[]) =>
    showDetails(markdownLines(parts), () => orphanSweepMetadata({ verificationProfileId }).staticSummary);
  const giveUp = (step: string, reason: string) => {
    show(`**gave up** ${step}: sessions may be left live or holding data at the service`);
    return gaveUp({
      kind: 'sweep',
      step,
      reason,
      next: `sessions may be left live or holding data at the service: once it answers again, start the sweep with \`idv sweep ${verificationProfileId}\``,
    });
  };
  let schedule: OrphanSchedule;
  try {
    schedule = await orphanSchedule.orphanSweepSchedule();
  } catch (error) {
    if (isCancellation(error)) throw error;
    throw giveUp('reading its schedule', describeFailure(error));
  }
  const { sweepOrphans } = proxyActivities<VerificationActivities>({
    startToCloseTimeout: '5 minutes',
    // The look heartbeats every second, whatever it waits on.
    heartbeatTimeout: '30 seconds',
    scheduleToCloseTimeout: Math.min(10 * 60_000, schedule.giveUpAfterMs),
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let coveredToMs = input.carried?.coveredToMs;
  let lastListing = input.carried?.lastListing;
  let failingSinceMs = input.carried?.failingSinceMs;
  let swept = input.carried?.swept ?? 0;
  let waitMs = schedule.lookEveryMs;
  for (;;) {
    lookRequested = false;
    const lookStartedMs = Date.now();
    show(`**looking** for orphans: ${swept} swept so far`);
    const closing = toClose.splice(0);
    inLook = closing.length;
    let look: OrphanLook | undefined;
    let failure: string | undefined;
    try {
      look = await sweepOrphans({
        verificationProfileId,
        ...(coveredToMs === undefined ? {} : { coveredToMs }),
        ...(lastListing === undefined ? {} : { lastListing }),
        ...(closing.length > 0 ? { toClose: closing } : {}),
      });
      if (look.failures > 0)
        failure = `${look.failures} orphans not ended or redacted: ${look.failure ?? ''}`;
    } catch (error) {
      if (isCancellation(error)) throw error;
      toClose.unshift(...closing);
      failure = describeFailure(error);
    } finally {
      inLook = 0;
    }
    if (failure === undefined) failingSinceMs = undefined;
    else {
      failingSinceMs ??= lookStartedMs;
      if (Date.now() - failingSinceMs >= schedule.giveUpAfterMs) {
        // A close being handed on by a handler is handed on before the sweep ends.
        await condition(allHandlersFinished);
        throw giveUp('looking for orphans', failure);
      }
    }
    if (look) {
      coveredToMs = look.coveredToMs;
      lastListing = look.lastListing;
      swept += look.redacted.length;
      if (!look.open && !lookRequested && toClose.length === 0) {
        // A close being handed on by a handler is handed on before the sweep ends.
        await condition(allHandlersFinished);
        if (!lookRequested && toClose.length === 0) {
          show(`**done**: ${swept} orphans swept, nothing left to look for`);
          return { verificationProfileId, swept };
        }
      }
      // Orphans found (they come in bursts) or a listing going on: look again soon; else more rarely.
      waitMs =
        look.redacted.length > 0 || failure || look.lastListing
          ? schedule.lookEveryMs
          : Math.min(waitMs * 2, schedule.maxLookEveryMs);
    }
    const nextLookMs = look ? waitMs : schedule.lookEveryMs;
    show(
      `**${failure ? 'failing' : 'waiting'}**: ${swept} orphans swept so far`,
      failure
        ? `Failing since ${new Date(failingSinceMs ?? lookStartedMs).toISOString()}; gives up after ${new Date((failingSinceMs ?? lookStartedMs) + schedule.giveUpAfterMs).toISOString()}`
        : '',
      `Next look: ${new Date(Date.now() + nextLookMs).toISOString()}, or when a verification asks`,
    );
    await condition(() => lookRequested, nextLookMs, { summary: 'until the next look' });
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= MAX_HISTORY_EVENTS) {
      await condition(allHandlersFinished);
      return await continueAsNew<typeof orphanSweep>({
        verificationProfileId,
        ...(toClose.length > 0 ? { toClose } : {}),
        carried: {
          ...(coveredToMs === undefined ? {} : { coveredToMs }),
          ...(lastListing === undefined ? {} : { lastListing }),
          ...(failingSinceMs === undefined ? {} : { failingSinceMs }),
          swept,
        },
      });
    }
  }
}

setWorkflowOptions({ versioningBehavior: verificationVersioning.orphanSweep }, orphanSweep);
