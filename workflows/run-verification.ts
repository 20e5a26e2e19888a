import { executeChild } from '@temporalio/workflow';
import { type VerificationInput, type VerificationOutcome } from '../domain/verification';
import { verificationSession } from './verification-session';

/**
 * Runs a verification as a child of the calling workflow, with the same workflow ID a client
 * start would use (`idv-<reference>`), so the session is never created twice. The input must
 * be validated already (see `parseVerificationRequest` in client/).
 */
export async function runVerification(input: VerificationInput): Promise<VerificationOutcome> {
  return await executeChild(verificationSession, {
    workflowId: verificationWorkflowId(input.reference),
    args: [input],
  });
}

/** The workflow ID of a verification. */
export function verificationWorkflowId(reference: string): string {
  return `idv-${reference}`;
}
