import { kindWorkflowId, referenceWorkflowId } from '../../common/workflow-ids';

/** The workflow ID of a verification: `idv-<reference>`. */
export function verificationWorkflowId(reference: string): string {
  return referenceWorkflowId(reference);
}

/**
 * The ID of a redaction: by session (`idv-redact-<session>`, or `idv-end-<session>` when it only
 * ends the session, `idv-redact-again-<session>` or `idv-end-again-<session>` when it looks again), or by data key for a verification without a session (`idv-redact-key-<key>`).
 */
export function redactionWorkflowId(args: {
  sessionId?: string;
  dataKeyId?: string;
  redact?: boolean;
  recheck?: boolean;
}): string {
  if (args.sessionId && args.recheck)
    return kindWorkflowId(args.redact === false ? 'ending' : 'redaction', `again-${args.sessionId}`);
  if (args.sessionId) return kindWorkflowId(args.redact === false ? 'ending' : 'redaction', args.sessionId);
  return kindWorkflowId('redaction', `key-${args.dataKeyId ?? 'none'}`);
}

/** The ID of a profile's orphan sweep: one per profile (`idv-orphans-<profile>`). */
export function orphanSweepWorkflowId(verificationProfileId: string): string {
  return kindWorkflowId('orphanSweep', verificationProfileId.toLowerCase());
}

/**
 * The ID of the workflow closing a verification's creation that its clean-up could not close:
 * `idv-orphans-close:<verification's workflow ID>`, beside the sweeps (a profile is a uuid).
 */
export function creationCloseWorkflowId(verificationWorkflowId: string): string {
  return kindWorkflowId('orphanSweep', `close:${verificationWorkflowId}`);
}
