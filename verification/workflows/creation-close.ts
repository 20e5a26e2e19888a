import { isCancellation, proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index';
import { showDetails } from '../../common/current-details';
import { describeFailure } from '../../common/bounded-step';
import { gaveUp } from '../../common/maintenance';
import { markdownLines } from '../../common/user-metadata';
import { creationCloseMetadata } from '../shared/metadata';
import {
  type CreationCloseArgs,
  type CreationCloseReport,
  verificationVersioning,
} from '../shared/workflows';
import { orphanSchedule } from './activity-proxies';
import { askForOrphanSweep } from './orphan-hand-offs';

/**
 * Closes the creation of a verification whose clean-up could not (the store was away), once the
 * store answers, and asks the profile's orphan sweep when an orphan may exist, as the clean-up
 * would have. One such workflow per verification: the close is owned by a workflow of its own, so
 * no list shared by every verification of a profile has to hold it (or can run out of room).
 * Its close is retried as long as the sweep keeps looking (the orphan horizon); then it gives
 * up visibly.
 */
export async function creationClose(args: CreationCloseArgs): Promise<CreationCloseReport> {
  const { verificationProfileId, close } = args;
  const show = (...parts: string[]) =>
    showDetails(markdownLines(parts), () => creationCloseMetadata(args).staticSummary);
  const giveUp = (step: string, reason: string) => {
    show(`**gave up** ${step}: a session created for the verification may be left live`);
    return gaveUp({
      kind: 'sweep',
      step,
      reason,
      next: `the creation of ${close.workflowId} stays open, so a session created for it later is not swept: once the store answers, reset this workflow to its first workflow task`,
    });
  };
  let giveUpAfterMs: number;
  try {
    ({ giveUpAfterMs } = await orphanSchedule.orphanSweepSchedule());
  } catch (error) {
    if (isCancellation(error)) throw error;
    throw giveUp('reading its schedule', describeFailure(error));
  }
  show(`**closing** the creation of \`${close.workflowId}\` once the store answers`);
  const { closeCreation } = proxyActivities<VerificationActivities>({
    startToCloseTimeout: '20 seconds',
    scheduleToCloseTimeout: giveUpAfterMs,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let sweepNeeded: boolean;
  try {
    ({ sweepNeeded } = await closeCreation({ verificationProfileId, ...close }));
  } catch (error) {
    if (isCancellation(error)) throw error;
    throw giveUp('closing a creation', describeFailure(error));
  }
  const sweepAsked = sweepNeeded && (await askForOrphanSweep(verificationProfileId));
  show(`**closed** the creation of \`${close.workflowId}\`${sweepAsked ? '; the orphan sweep asked' : ''}`);
  return { workflowId: close.workflowId, sweepAsked };
}

setWorkflowOptions({ versioningBehavior: verificationVersioning.creationClose }, creationClose);
