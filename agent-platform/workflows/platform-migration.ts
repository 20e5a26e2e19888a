import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { AgentPlatformActivities } from '../activities/index';
import type { TenantPlan } from '../activities/migration-activities';
import { innermostMessage } from '../../common/failure-message';
import { migrationInputProblems, type PlatformMigrationInput } from '../domain/migration/migration-input';
import {
  failedMigrationOutcomes,
  type MigrationReport,
  reportFlagCount,
  type WebhookReport,
} from '../domain/migration/migration-report';
import { countGiveUp } from '../../common/maintenance';
import { IdvStatus, NEEDS_ATTENTION } from '../../common/search-attributes';
import { type MigrationProgress, migrationProgressQuery } from '../shared/migration-messages';
import { agentPlatformVersioning } from '../shared/workflows';
import { setCurrentDetails, setWorkflowOptions } from '@temporalio/workflow';
import { markdownLines } from '../../common/user-metadata';
import { migrationDetails } from '../shared/metadata';

// Each call is short and heartbeats (a dead worker is noticed in seconds); the registry behind the
// cut-over retries the platform itself. A call still failing after ten minutes fails the step,
// which ends the migration with a report rather than leave it waiting.
const calls = proxyActivities<AgentPlatformActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * Moves one tenant off the earlier platform (`idv-migration-<tenant>`): inventory → convert →
 * apply (redirect URIs the authorize requests need, skipping those already allowed) → cut over
 * (the enabled earlier webhooks disabled through the tenant's registry) → report. A dry run
 * (the default) stops after reading what is registered and changes nothing. Every write is
 * idempotent and each step's result is in history, so a re-run or a resumed run after a crash
 * repeats no side effect. A cut-over that fails (or is cancelled) part way enables again what
 * it disabled, and the report says why.
 */
export async function platformMigration(input: PlatformMigrationInput): Promise<MigrationReport> {
  const problems = migrationInputProblems(input);
  if (problems.length > 0)
    throw ApplicationFailure.create({
      type: 'InvalidMigrationInput',
      message: problems.join('; '),
      nonRetryable: true,
    });
  const { tenant, target } = input;
  const mode = input.apply === true ? 'apply' : 'dry-run';
  const startedAt = new Date().toISOString();
  const progress: MigrationProgress = {
    tenant,
    mode,
    stage: 'inventory',
    redirectUris: { needed: 0, registered: 0, skipped: 0 },
    webhooks: { toDisable: 0, disabled: 0, reEnabled: 0 },
    flags: 0,
  };
  setHandler(migrationProgressQuery, () => progress);
  // Said after every change of the progress, which the query answers too.
  let urisClassified = true;
  const show = () => setCurrentDetails(migrationDetails(progress, urisClassified));
  const at = (stage: MigrationProgress['stage']) => {
    progress.stage = stage;
    show();
  };
  show();
  const report: MigrationReport = {
    tenant,
    mode,
    outcome: 'planned',
    startedAt,
    finishedAt: startedAt,
    templates: [],
    authorizeRequests: [],
    redirectUris: [],
    webhooks: [],
  };
  const finish = (outcome: MigrationReport['outcome'], error?: Error): MigrationReport => {
    const step = outcome === 'compensation-failed' ? 'compensation' : progress.stage;
    progress.stage = 'done';
    report.outcome = outcome;
    // The innermost message says why (the platform's answer, the registry's refusal).
    if (error !== undefined) report.error = innermostMessage(error);
    report.finishedAt = new Date().toISOString();
    setCurrentDetails(markdownLines([`**${outcome}** (${mode})`, `Finished at ${report.finishedAt}`]));
    if (failedMigrationOutcomes.includes(outcome)) {
      // Bounded steps that gave up: counted, and listed by `idv list --failed`.
      countGiveUp({ kind: 'migration', step });
      upsertSearchAttributes([{ key: IdvStatus, value: NEEDS_ATTENTION }]);
    }
    return report;
  };

  // Read and converted in one activity: the plan is in history, so a converter changed by a
  // deploy never changes what a running migration does.
  let tenantPlan: TenantPlan;
  try {
    tenantPlan = await calls.planTenantMigration({ tenant, target });
  } catch (error) {
    return finish('failed', expectedFailure(error));
  }
  const { plan, webhooks, blockers } = tenantPlan;
  report.templates = plan.templates;
  report.authorizeRequests = plan.authorizeRequests;
  if (blockers.length > 0) report.blockers = blockers;
  progress.flags = reportFlagCount(report);
  at('convert');

  // Until the service said which of them it has, the details say how many it is asked about.
  progress.redirectUris.needed = plan.redirectUris.length;
  urisClassified = false;
  at('apply');
  try {
    report.redirectUris = await calls.classifyRedirectUris(plan.redirectUris);
  } catch (error) {
    return finish('failed', expectedFailure(error));
  }
  report.webhooks = webhooks.map((webhook): WebhookReport => ({
    ...webhook,
    action: webhook.enabled ? 'disable' : 'already-disabled',
  }));
  progress.redirectUris.skipped = report.redirectUris.filter((uri) => uri.action === 'exists').length;
  progress.webhooks.toDisable = plan.webhooksToDisable.length;
  urisClassified = true;
  show();
  if (mode === 'dry-run') return finish('planned');
  if (blockers.length > 0) return finish('failed', new Error(`nothing changed: ${blockers.join('; ')}`));

  let changed = false;
  try {
    for (const entry of report.redirectUris) {
      if (entry.action !== 'register') continue;
      const done = await calls.ensureRedirectUri(entry.uri);
      // Found rather than made: an earlier attempt (or someone else) registered it meanwhile.
      entry.action = done.action;
      if (done.coveredBy) entry.coveredBy = done.coveredBy;
      if (done.action === 'registered') {
        changed = true;
        progress.redirectUris.registered += 1;
      } else progress.redirectUris.skipped += 1;
      show();
    }
  } catch (error) {
    return finish('failed', expectedFailure(error));
  }

  at('cut-over');
  // Each disable runs to its end even when the migration is cancelled meanwhile: a disable cut
  // short could still land at the registry after the compensation, and stay. The cancel is
  // taken between webhooks. The one in flight when a call fails is compensated too: enabling
  // is idempotent, and the failure may have come after the platform disabled it.
  const attempted: WebhookReport[] = [];
  const root = CancellationScope.current();
  try {
    for (const entry of report.webhooks) {
      if (entry.action !== 'disable') continue;
      if (root.consideredCancelled) await root.cancelRequested;
      attempted.push(entry);
      entry.action = await CancellationScope.nonCancellable(() =>
        calls.disableEarlierWebhook({ tenant, webhookId: entry.id }),
      );
      if (entry.action === 'disabled') {
        changed = true;
        progress.webhooks.disabled += 1;
        show();
      }
    }
    if (root.consideredCancelled) await root.cancelRequested;
  } catch (error) {
    // Compensation: the tenant keeps receiving events on the earlier platform, as before the
    // cut-over began. It runs even when the migration was cancelled.
    at('compensate');
    // Each webhook it disabled, and the one in flight; not one found disabled already by a first
    // attempt (someone else's doing; a retry after a lost answer reports its own as disabled).
    const inFlight = attempted.find((entry) => entry.action === 'disable');
    const touched = attempted.filter((entry) => entry.action !== 'already-disabled');
    const failedEnables: ActivityFailure[] = [];
    const compensated = await CancellationScope.nonCancellable(() =>
      reEnable(tenant, touched, progress, failedEnables, show),
    );
    if (inFlight?.action === 're-enabled') inFlight.action = 'failed';
    for (const entry of report.webhooks) if (entry.action === 'disable') entry.action = 'not-reached';
    const cancelled = isCancellation(error);
    // A cancel whose compensation worked ends cancelled; one whose compensation failed reports
    // which webhooks stay disabled, and why, rather than vanish in a plain cancel.
    if (cancelled && compensated) throw error;
    if (cancelled) report.cancelled = true;
    const reason = cancelled ? new Error('cancelled during the cut-over') : expectedFailure(error);
    if (compensated) return finish('rolled-back', reason);
    const failedEnable = failedEnables.at(-1);
    return finish(
      'compensation-failed',
      new Error(
        `${innermostMessage(reason)}; enabling again failed${failedEnable ? ` (${innermostMessage(failedEnable)})` : ''}: ${report.webhooks
          .filter((entry) => entry.action === 're-enable-failed')
          .map((entry) => entry.id)
          .join(', ')} stay disabled`,
      ),
    );
  }

  at('report');
  return finish(changed ? 'applied' : 'unchanged');
}

/** Enables each webhook again, newest first; false when any could not be (its failure kept). */
async function reEnable(
  tenant: string,
  disabled: WebhookReport[],
  progress: MigrationProgress,
  failures: ActivityFailure[],
  show: () => void,
): Promise<boolean> {
  let all = true;
  for (const entry of [...disabled].reverse()) {
    try {
      entry.action = await calls.enableEarlierWebhook({ tenant, webhookId: entry.id });
      progress.webhooks.reEnabled += 1;
      show();
    } catch (error) {
      failures.push(expectedFailure(error));
      entry.action = 're-enable-failed';
      all = false;
    }
  }
  return all;
}

/** An activity's failure (reported); anything else is a bug or a cancellation, and is thrown. */
function expectedFailure(error: unknown): ActivityFailure {
  if (error instanceof ActivityFailure && !isCancellation(error)) return error;
  throw error;
}

setWorkflowOptions({ versioningBehavior: agentPlatformVersioning.migration }, platformMigration);
