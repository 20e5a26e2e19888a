import { type Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type MigrationReport } from '../domain/migration/migration-report';
import { innermostMessage } from '../../common/failure-message';
import { type WebhookListing } from '../shared/messages';
import { MAINTENANCE_GAVE_UP } from '../../common/failure-types';
import { NEEDS_ATTENTION } from '../../common/search-attributes';
import { agentPlatformWorkflowTypes } from '../shared/workflows';
import { KEYRING_WORKFLOW_TYPE } from '../../keyring/shared';
import { queryValue } from '../../common/visibility-query';
import { kindWorkflowId, referenceOfWorkflowId } from '../../common/workflow-ids';
import { verificationWorkflowTypes } from '../../verification/shared/workflows';
import { creationCloseWorkflowId, orphanSweepWorkflowId } from '../../verification/shared/ids';
import { agentWebhooksWorkflowId } from '../domain/agent-tenants';
import { migrationWorkflowId } from '../domain/migration/migration-input';

/** A workflow of the task queue that failed, or whose step gave up: what happened and what to do. */
export interface FailedWork {
  workflowId: string;
  /** The workflow type (`sessionRedaction`, `orphanSweep`, `platformMigration`, `agentWebhooks`, …). */
  type: string;
  /**
   * `failed`: it ended failed; `needs-attention`: it runs on (or completed) with a step that gave
   * up; `terminated`: a verification, a redaction, a tenant's webhook registry or a migration was
   * terminated from outside (none of its clean-up ran); `cancelled`: a redaction, an orphan sweep,
   * a creation's close or a registry was cancelled from outside before it finished (a redaction
   * still erases what it stores at its due time; what else it had left to do stays).
   */
  state: 'failed' | 'needs-attention' | 'terminated' | 'cancelled';
  /** When it ended, or when it started for one still running (ISO). */
  at: string;
  /** Why, in a sentence (no personal data: failure texts never hold any). */
  reason: string;
  /** What an operator does next. */
  next: string;
}

/** What to do after a failure that says nothing of it. */
const LOOK_AT_HISTORY =
  'open its history in the web UI (or `temporal workflow show`) to see which step failed';

/**
 * Workflows whose termination leaves the person's data behind: a verification's clean-up (the
 * session's ending, the redaction's start), a redaction, an orphan sweep and a creation's close
 * run only in their own code.
 */
const ERASING_TYPES: readonly string[] = [
  verificationWorkflowTypes.session,
  verificationWorkflowTypes.redaction,
  verificationWorkflowTypes.orphanSweep,
  verificationWorkflowTypes.creationClose,
];

/**
 * Of those, the ones a cancel cuts short: a verification's cancel is one of its endings (its
 * clean-up runs), but a redaction (whose steps at the service it cuts), a sweep or a close has
 * nothing to end but itself.
 */
const CANCELLED_ERASING_TYPES: readonly string[] = ERASING_TYPES.filter(
  (type) => type !== verificationWorkflowTypes.session,
);

/**
 * Workflows of the earlier platform that a stop from outside leaves halfway: a registry forgets
 * which webhooks it managed or disabled (a move of the receiver's webhook cut short is never
 * finished), a migration terminated in its cut-over leaves webhooks disabled without enabling
 * them again (a cancelled one compensates, and reports when that failed).
 */
const STOPPED_PLATFORM_TYPES = {
  terminated: [agentPlatformWorkflowTypes.registry, agentPlatformWorkflowTypes.migration],
  cancelled: [agentPlatformWorkflowTypes.registry],
} as const satisfies Record<'terminated' | 'cancelled', readonly string[]>;

const TERMINATED_TYPES: readonly string[] = [...ERASING_TYPES, ...STOPPED_PLATFORM_TYPES.terminated];
const CANCELLED_TYPES: readonly string[] = [...CANCELLED_ERASING_TYPES, ...STOPPED_PLATFORM_TYPES.cancelled];

/** Visibility's condition on the workflow type: one of `types`. */
const typeIn = (types: readonly string[]) =>
  `(${types.map((type) => `WorkflowType = ${queryValue(type)}`).join(' OR ')})`;

/**
 * The workflows of a task queue that failed or gave up a step (`ExecutionStatus = 'Failed'`, or
 * `IdvStatus = 'needs-attention'`), and the workflows of the erasure terminated from outside,
 * newest first, each with its reason and the next step: the failure's message (payload-decoded
 * with the client's keys) for failed ones, the report or the registry's listing for the others.
 */
export async function listFailedWork(
  client: Client,
  options: { taskQueue: string; limit?: number },
): Promise<FailedWork[]> {
  const terminated = `(ExecutionStatus = 'Terminated' AND ${typeIn(TERMINATED_TYPES)})`;
  const cancelled = `(ExecutionStatus = 'Canceled' AND ${typeIn(CANCELLED_TYPES)})`;
  const query = `TaskQueue = ${queryValue(options.taskQueue)} AND (ExecutionStatus = 'Failed' OR IdvStatus = ${queryValue(NEEDS_ATTENTION)} OR ${terminated} OR ${cancelled})`;
  const found: FailedWork[] = [];
  /** A later run of the workflow ID exists (its latest run is another). */
  const replaced = async (workflowId: string, runId: string) =>
    await client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        (latest) => latest.runId !== runId,
        () => false,
      );
  for await (const execution of client.workflow.list({ query })) {
    const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
    const at = (execution.closeTime ?? execution.startTime).toISOString();
    const base = { workflowId: execution.workflowId, type: execution.type, at };
    if (execution.status.name === 'FAILED') {
      const error: unknown = await handle.result().catch((failure: unknown) => failure);
      found.push({ ...base, state: 'failed', ...failureReason(error) });
    } else if (
      (execution.status.name === 'TERMINATED' && TERMINATED_TYPES.includes(execution.type)) ||
      (execution.status.name === 'CANCELLED' && CANCELLED_TYPES.includes(execution.type))
    ) {
      // A redaction replaced by another of its session (`idv redact` runs one at once) is not
      // lost; nor a registry or a migration started again since.
      if (await replaced(handle.workflowId, execution.runId)) continue;
      const state = execution.status.name === 'TERMINATED' ? 'terminated' : 'cancelled';
      found.push({ ...base, state, ...stoppedReason(execution.workflowId, execution.type, state) });
    } else if (execution.type === agentPlatformWorkflowTypes.migration) {
      const report = (await handle.result().catch(() => undefined)) as MigrationReport | undefined;
      found.push({ ...base, state: 'needs-attention', ...migrationReason(report) });
    } else if (execution.type === agentPlatformWorkflowTypes.registry) {
      const listing = (await handle.query('list').catch(() => undefined)) as WebhookListing | undefined;
      found.push({ ...base, state: 'needs-attention', ...registryReason(listing) });
    } else if (execution.type === KEYRING_WORKFLOW_TYPE) {
      found.push({
        ...base,
        state: 'needs-attention',
        reason: 'a key rotation could not re-wrap the data keys (the older keys are kept, nothing is lost)',
        next: 'check that the workers reach the store, then `idv keyring rotate`',
      });
    } else {
      found.push({ ...base, state: 'needs-attention', reason: 'a step gave up', next: LOOK_AT_HISTORY });
    }
    if (found.length >= (options.limit ?? 50)) break;
  }
  return found;
}

/** Why a workflow of the erasure stopped from outside matters, and what starts it again. */
function stoppedReason(
  workflowId: string,
  type: string,
  state: 'terminated' | 'cancelled',
): Pick<FailedWork, 'reason' | 'next'> {
  const reference = referenceOfWorkflowId(workflowId);
  const sweepPrefix = orphanSweepWorkflowId('');
  const closePrefix = creationCloseWorkflowId('');
  const registryPrefix = agentWebhooksWorkflowId('');
  if (type === agentPlatformWorkflowTypes.registry && workflowId.startsWith(registryPrefix)) {
    const tenant = workflowId.slice(registryPrefix.length);
    return {
      reason: `${state}: the tenant's webhooks are no longer compared with the platform, and which of them it managed or disabled is forgotten (a new registry takes them for external; a move of the receiver's webhook it had begun is not finished)`,
      next: `\`idv webhooks list --tenant ${tenant}\` starts it again; then \`idv webhooks add --tenant ${tenant}\` for the receiver's webhook, and \`idv webhooks add --url <url> --tenant ${tenant}\` for each one it should manage`,
    };
  }
  const migrationPrefix = migrationWorkflowId('');
  if (type === agentPlatformWorkflowTypes.migration && workflowId.startsWith(migrationPrefix)) {
    const tenant = workflowId.slice(migrationPrefix.length);
    return {
      reason: `${state}: its cut-over may have left earlier webhooks disabled, without enabling them again or a report`,
      next: `\`idv webhooks list --tenant ${tenant}\` shows which are disabled: enable those that should deliver (\`idv webhooks enable <id> --tenant ${tenant}\`), or run the migration again`,
    };
  }
  if (type === verificationWorkflowTypes.creationClose && workflowId.startsWith(closePrefix))
    return {
      reason: `${state}: a verification's creation may stay open, so a session created for it later is not swept`,
      next: `\`idv redact ${referenceOfWorkflowId(workflowId.slice(closePrefix.length)) ?? '<reference>'}\` starts it again`,
    };
  if (type === verificationWorkflowTypes.orphanSweep && workflowId.startsWith(sweepPrefix))
    return {
      reason: `${state}: sessions created for unanswered creates may be left live or holding data`,
      next: `\`idv sweep ${workflowId.slice(sweepPrefix.length)}\` starts the sweep again`,
    };
  if (type === verificationWorkflowTypes.session && reference !== undefined)
    return {
      reason:
        'terminated: its clean-up did not run, so its session may be live at the service and its data key is not destroyed',
      next: `\`idv redact ${reference}\` ends and redacts its session and destroys its data key`,
    };
  if (
    workflowId.startsWith(kindWorkflowId('redaction', 'again-')) ||
    workflowId.startsWith(kindWorkflowId('ending', 'again-'))
  )
    return {
      reason: `${state}: the look again at a session the service had said it did not know did not finish, so the session may be live or hold the person’s data there (its stores were erased before)`,
      next: '`idv redact <reference>` for its verification (`idv list` shows the verification of its session) ends and redacts it',
    };
  if (state === 'cancelled') return cancelledRedaction(workflowId);
  return {
    reason: `${state}: the redaction did not finish, so the person’s data may be left at the service and in the stores`,
    next: '`idv redact <reference>` for its verification (`idv list` shows the verification of its session) runs it again',
  };
}

/**
 * A redaction cancelled from outside: it still erased what it stores at its due time (from the
 * patch `erased-when-cancelled` on; one cancelled on an earlier build erased nothing), and cut
 * its steps at the service short.
 */
function cancelledRedaction(workflowId: string): Pick<FailedWork, 'reason' | 'next'> {
  const earlier = '(one cancelled on a build before `erased-when-cancelled` erased nothing)';
  const again =
    '`idv redact <reference>` for its verification (`idv list` shows the verification of its session)';
  if (workflowId.startsWith(kindWorkflowId('ending', '')))
    return {
      reason: 'cancelled: the session’s ending at the service was cut short, so it may be live there',
      next: `end the session at the service; ${again} ends it and also erases its data`,
    };
  if (workflowId.startsWith(kindWorkflowId('redaction', 'key-')))
    return {
      reason: `cancelled: its data key was destroyed at its due time all the same ${earlier}, but the erasure is not recorded`,
      next: `${again} runs it again and records it`,
    };
  return {
    reason: `cancelled: its steps at the service were cut short, so the session may be live or hold the person’s data there; the stored data and the data keys were erased at its due time all the same ${earlier}`,
    next: `${again} runs it again`,
  };
}

function failureReason(error: unknown): Pick<FailedWork, 'reason' | 'next'> {
  const cause = error instanceof WorkflowFailedError ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type === MAINTENANCE_GAVE_UP) {
    const [reason, next] = cause.message.split('. Next: ');
    return { reason: reason ?? cause.message, next: next ?? LOOK_AT_HISTORY };
  }
  return { reason: error instanceof Error ? innermostMessage(error) : 'it failed', next: LOOK_AT_HISTORY };
}

function migrationReason(report: MigrationReport | undefined): Pick<FailedWork, 'reason' | 'next'> {
  if (!report) return { reason: 'its report cannot be read', next: LOOK_AT_HISTORY };
  const disabled = report.webhooks.filter((webhook) => webhook.action === 're-enable-failed');
  const reason = `migration of ${report.tenant} ${report.outcome}${report.error ? `: ${report.error}` : ''}`;
  if (disabled.length > 0)
    return {
      reason,
      next: `enable the webhooks left disabled (${disabled.map((webhook) => `idv webhooks enable ${webhook.id} --tenant ${report.tenant}`).join('; ')}), then run the migration again`,
    };
  return {
    reason,
    next: `fix what the error names, then run \`idv migrate --tenant ${report.tenant} --apply\` again`,
  };
}

function registryReason(listing: WebhookListing | undefined): Pick<FailedWork, 'reason' | 'next'> {
  const failedRepair = listing?.drift.find((drift) => drift.outcome.startsWith('repair failed'));
  const reason =
    listing?.lastReconcile?.ok === false
      ? `the platform did not answer its comparison: ${listing.lastReconcile.error ?? 'no reason given'}`
      : failedRepair
        ? `webhook ${failedRepair.webhookId}: ${failedRepair.outcome}`
        : 'its last comparison gave up';
  const tenant = listing?.tenant ?? '<tenant>';
  return {
    reason,
    next: `check the platform and the tenant's key (IDV_AGENT_KEYS), then \`idv webhooks reconcile --tenant ${tenant}\``,
  };
}
