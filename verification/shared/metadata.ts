import { formatDuration } from '../../common/durations';
import { startMetadata, type StartMetadata } from '../../common/user-metadata';
import type { VerificationInput } from '../domain/verification';
import type { CreationCloseArgs, OrphanSweepInput, RedactionArgs } from './workflows';

/*
 * Temporal's user metadata of the verification workflows. Every start of one takes its static
 * summary and details from here; the workflows keep their current details themselves. Never
 * personal data: only the business reference (refused at the start when it looks like a
 * person's), service-issued ids, the provider, statuses, error codes and times.
 */

type VerificationStart = Pick<
  VerificationInput,
  'reference' | 'provider' | 'verificationProfileId' | 'timeout' | 'results' | 'redactAfter'
>;

/** A verification's, wherever it starts (a client, `runVerification`, an onboarding). */
export function verificationMetadata(input: VerificationStart): StartMetadata {
  return startMetadata(
    `Verification ${input.reference} · ${input.provider} · profile ${input.verificationProfileId}`,
    [
      `**Verification** of reference \`${input.reference}\``,
      `Provider: ${input.provider}; profile: ${input.verificationProfileId}`,
      `Timeout: ${formatDuration(input.timeout)}; results: ${input.results}`,
      `Personal data redacted: ${redactionWords(input.redactAfter)}`,
    ],
  );
}

/**
 * A redaction's: by reference when it has one, else by session or data key. `dueAt` is when a
 * redaction started with a delay runs (its arguments then say no delay).
 */
export function redactionMetadata(args: RedactionArgs, dueAt?: string): StartMetadata {
  const what = args.redact === false ? 'Session ending' : 'Redaction';
  const of = args.reference ? `of verification ${args.reference}` : '';
  const target = args.sessionId ? `session ${args.sessionId}` : `data key ${args.dataKeyId ?? 'none'}`;
  return startMetadata([what, of, `· ${target}`].filter(Boolean).join(' '), [
    args.redact === false
      ? `**Ends** ${target} at the service; it erases nothing (${endingOnlyWhy(args)})`
      : args.recheck
        ? `**Looks again** at ${target}, which the service said it did not know: ends and redacts it if it is there`
        : `**Erases** the person's data of ${target}: at the service, in the stores, and the data key`,
    args.redact === false
      ? ''
      : `Due: ${dueAt ?? (args.delayMs > 0 ? `${formatDuration(args.delayMs)} after its start` : 'at its start')}`,
    args.awaitDelivery ? 'Waits first for the results to be delivered' : '',
  ]);
}

/**
 * Why an ending-only run erases nothing: the verification keeps its data (`redactAfter: 'never'`,
 * the one such run that names its verification), or its own redaction erases it later.
 */
export function endingOnlyWhy(args: RedactionArgs): string {
  return args.reference
    ? 'the verification keeps its data by request'
    : "the verification's redaction does, when due";
}

/** A profile's orphan sweep's. */
export function orphanSweepMetadata(input: OrphanSweepInput): StartMetadata {
  return startMetadata(`Orphan sweep · profile ${input.verificationProfileId}`, [
    `**Looks for sessions** of profile ${input.verificationProfileId} that no verification keeps`,
    'Each one found is ended at the service and redacted',
  ]);
}

/** The close of a verification's creation, made by a workflow of its own. */
export function creationCloseMetadata(args: CreationCloseArgs): StartMetadata {
  return startMetadata(`Creation close · ${args.close.workflowId}`, [
    `**Closes the creation** of verification \`${args.close.workflowId}\` (profile ${args.verificationProfileId}) once the store answers`,
    'From then on any session created for it is an orphan, which the sweep ends and redacts',
  ]);
}

/** When a verification's data is redacted, in words. */
export function redactionWords(redactAfter: number | 'never'): string {
  if (redactAfter === 'never') return 'never (the session is still ended)';
  return redactAfter === 0
    ? 'right after the results are delivered'
    : `${formatDuration(redactAfter)} after the ending`;
}
