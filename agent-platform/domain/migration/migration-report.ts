import { type AuthorizePlan, type InventoryWebhook, type TemplatePlan } from './migration-plan';

/** How a migration ended. */
export type MigrationOutcome =
  /** A dry run: nothing was changed. */
  | 'planned'
  /** Applied: redirect URIs registered and webhooks disabled. */
  | 'applied'
  /** Applied, but everything was done already (a second apply). */
  | 'unchanged'
  /** The cut-over failed; the webhooks it had disabled were enabled again. */
  | 'rolled-back'
  /**
   * The cut-over failed or was cancelled, and enabling again what it had disabled failed too:
   * the webhooks marked `re-enable-failed` stay disabled (and their registry keeps them so)
   * until someone enables them (`idv webhooks enable`); `error` says why.
   */
  | 'compensation-failed'
  /** It failed before the cut-over began: see `error`. */
  | 'failed';

/** What happened (or, in a dry run, would happen) to a redirect URI. */
export interface RedirectUriReport {
  uri: string;
  action: 'register' | 'registered' | 'exists';
  /** The registered URI that already allows it (the same one, or a `*` wildcard). */
  coveredBy?: string;
}

/** What happened (or would happen) to an earlier webhook. */
export interface WebhookReport extends InventoryWebhook {
  /** `failed`: its disable failed (it is enabled, as before); `not-reached`: the cut-over stopped before it. */
  action:
    | 'disable'
    | 'disabled'
    | 'already-disabled'
    | 'failed'
    | 're-enabled'
    | 're-enable-failed'
    | 'not-reached';
}

/** The migration's JSON report. */
export interface MigrationReport {
  tenant: string;
  mode: 'dry-run' | 'apply';
  outcome: MigrationOutcome;
  startedAt: string;
  finishedAt: string;
  /** Templates to publish at their URLs (the current API offers no template operation). */
  templates: TemplatePlan[];
  authorizeRequests: AuthorizePlan[];
  redirectUris: RedirectUriReport[];
  webhooks: WebhookReport[];
  /** What stops an apply (a dry run reports them; an apply with any changes nothing). */
  blockers?: string[];
  /** Why it failed or rolled back. */
  error?: string;
  /** The migration was cancelled during its cut-over (its compensation failed, or it would end cancelled). */
  cancelled?: true;
}

/** Outcomes an operator must look at (the command exits 1, `idv list --failed` lists the migration). */
export const failedMigrationOutcomes: readonly MigrationOutcome[] = [
  'failed',
  'rolled-back',
  'compensation-failed',
];

/** Flags of the report, all together. */
export function reportFlagCount(report: MigrationReport): number {
  return (
    report.templates.reduce((sum, t) => sum + t.flags.length, 0) +
    report.authorizeRequests.reduce((sum, a) => sum + a.flags.length, 0)
  );
}

const count = <T>(items: T[], test: (item: T) => boolean) => items.filter(test).length;

/** A readable summary of a report: what moved, what was flagged, what was skipped. */
export function summariseMigration(report: MigrationReport): string {
  const dry = report.mode === 'dry-run';
  const lines = [
    `Migration of ${report.tenant} (${dry ? 'dry run: nothing changed' : 'applied'}): ${report.outcome}`,
  ];
  if (report.error) lines.push(`  error: ${report.error}`);
  for (const blocker of report.blockers ?? []) lines.push(`  blocks --apply: ${blocker}`);
  lines.push(`  credential templates: ${report.templates.length} (publish each at its URL)`);
  for (const { schemaId, template, flags } of report.templates)
    lines.push(`    ${schemaId} → ${template.id}${flags.length ? ` (${flags.length} flagged)` : ''}`);
  lines.push(`  authorize requests: ${report.authorizeRequests.length}`);
  for (const plan of report.authorizeRequests)
    lines.push(
      `    ${plan.name} ${plan.version} → ${plan.request.disclose.flatMap((d) => d.attributes).join(', ') || 'no attributes'}${plan.flags.length ? ` (${plan.flags.length} flagged)` : ''}`,
    );
  const uris = report.redirectUris;
  lines.push(
    `  redirect URIs: ${count(uris, (u) => u.action === 'registered')} registered, ${count(uris, (u) => u.action === 'register')} to register, ${count(uris, (u) => u.action === 'exists')} skipped (already allowed)`,
  );
  for (const uri of uris)
    lines.push(`    ${uri.action.padEnd(10)} ${uri.uri}${uri.coveredBy ? ` (by ${uri.coveredBy})` : ''}`);
  const hooks = report.webhooks;
  lines.push(
    `  earlier webhooks: ${count(hooks, (w) => w.action === 'disabled')} disabled, ${count(hooks, (w) => w.action === 'disable')} to disable, ${count(hooks, (w) => w.action === 'already-disabled')} skipped (already disabled), ${count(hooks, (w) => w.action === 're-enabled')} re-enabled`,
  );
  for (const webhook of hooks) lines.push(`    ${webhook.action.padEnd(16)} ${webhook.id} ${webhook.url}`);
  const flags = [
    ...report.templates.flatMap((t) => t.flags.map((f) => ({ where: t.schemaId, ...f }))),
    ...report.authorizeRequests.flatMap((a) => a.flags.map((f) => ({ where: a.name, ...f }))),
  ];
  lines.push(`  flagged: ${flags.length}`);
  for (const flag of flags)
    lines.push(
      `    [${flag.concept}] ${flag.where}${flag.attribute ? ` ${flag.attribute}` : ''}: ${flag.note}`,
    );
  return lines.join('\n');
}
