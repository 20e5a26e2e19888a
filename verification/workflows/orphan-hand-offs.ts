import {
  ChildWorkflowCancellationType,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  ParentClosePolicy,
  patched,
  startChild,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { countGiveUp } from '../../common/maintenance';
import { creationCloseWorkflowId, orphanSweepWorkflowId } from '../shared/ids';
import { type CreationToClose, type LookForOrphans, lookForOrphansSignal } from '../shared/messages';
import { creationCloseMetadata, orphanSweepMetadata } from '../shared/metadata';
import {
  type CreationCloseWorkflow,
  type OrphanSweepWorkflow,
  verificationWorkflowTypes,
} from '../shared/workflows';

// Started by their types' names, not their code: the sweep hands closes to `creationClose`,
// which asks the sweep, and neither module imports the other.

/**
 * The patch under which the sweep and the creation close are started as nobody's to cancel: each
 * serves other verifications too, and a child is sent its starter's cancel whatever its parent
 * close policy (runs of release 1.0.0 cancelled the profile's sweep with the verification that
 * had started it, leaving the others' orphans live).
 */
const SHARED_CHILDREN_LEFT_ON_CANCEL = 'shared-children-left-on-cancel';

/** How a shared child is started: it outlives its starter, and its starter's cancel. */
function sharedChild() {
  return {
    parentClosePolicy: ParentClosePolicy.ABANDON,
    ...(patched(SHARED_CHILDREN_LEFT_ON_CANCEL)
      ? { cancellationType: ChildWorkflowCancellationType.ABANDON }
      : {}),
  };
}

/** Starts an abandoned child once; a second start of the same ID is fine. */
export async function startOnce(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * Starts the workflow that closes a verification's creation once the store answers (abandoned:
 * it outlives its starter and its cancel), and answers its ID.
 */
export async function startCreationClose(
  verificationProfileId: string,
  close: CreationToClose,
): Promise<string> {
  const args = { verificationProfileId, close };
  const workflowId = creationCloseWorkflowId(close.workflowId);
  await startOnce(() =>
    startChild<CreationCloseWorkflow>(verificationWorkflowTypes.creationClose, {
      workflowId,
      args: [args],
      ...creationCloseMetadata(args),
      ...sharedChild(),
    }),
  );
  return workflowId;
}

/**
 * Makes sure the profile's orphan sweep runs and looks soon: starts it (abandoned, so it
 * outlives the caller and its cancel), or signals the one running; one that ended between the two is started
 * again. `close` hands it a creation to close (verifications of release 1.0.0 did, when the store
 * was away). False when it could not be asked (said and counted).
 */
export async function askForOrphanSweep(
  verificationProfileId: string,
  close?: LookForOrphans['close'],
): Promise<boolean> {
  const workflowId = orphanSweepWorkflowId(verificationProfileId);
  for (let tries = 0; tries < 3; tries += 1) {
    try {
      await startChild<OrphanSweepWorkflow>(verificationWorkflowTypes.orphanSweep, {
        workflowId,
        args: [{ verificationProfileId, ...(close ? { toClose: [close] } : {}) }],
        ...orphanSweepMetadata({ verificationProfileId }),
        ...sharedChild(),
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      });
      return true;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    try {
      await getExternalWorkflowHandle(workflowId).signal(lookForOrphansSignal, close ? { close } : {});
      return true;
    } catch (error) {
      if (isCancellation(error)) throw error;
    }
  }
  // Started and ended three times over between a start and a signal: said, and counted.
  log.error('the orphan sweep could not be asked', { workflowId });
  countGiveUp({ kind: 'sweep', step: 'asking the sweep' });
  return false;
}
