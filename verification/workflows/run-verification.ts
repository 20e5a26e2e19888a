import { executeChild, ParentClosePolicy, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { FINAL_URL_MEMO, type SealedVerificationOutcome } from '../domain/outcome';
import type { VerificationInput } from '../domain/verification';
import { verificationSession } from './verification-session';
import { verificationWorkflowId } from '../shared/ids';
import { verificationMetadata } from '../shared/metadata';

/**
 * Runs a verification as a child of the calling workflow, with the same workflow ID a client
 * start would use (`idv-<reference>`), so the session is never created twice. The input must
 * be prepared already, before the parent starts (`IdvClient.prepareInput`: validated, data key
 * created, `providerInput` sealed). However the parent closes
 * (cancelled, terminated, timed out), the child is asked to cancel, so its clean-up runs.
 */
export async function runVerification(input: VerificationInput): Promise<SealedVerificationOutcome> {
  return await executeChild(verificationSession, {
    workflowId: verificationWorkflowId(input.reference),
    args: [input],
    ...verificationMetadata(input),
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    // As a client start: a reference that already ran is refused, never a second session.
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    // The receiver's `/return/<reference>` reads it without asking a worker.
    ...(input.finalUrl ? { memo: { [FINAL_URL_MEMO]: input.finalUrl } } : {}),
  });
}
