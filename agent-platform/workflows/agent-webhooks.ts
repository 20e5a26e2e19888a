import { showDetails } from '../../common/current-details';
import { registryMetadata } from '../shared/metadata';
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  patched,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { countGiveUp } from '../../common/maintenance';
import { IdvStatus, NEEDS_ATTENTION } from '../../common/search-attributes';
import {
  MAX_NOTIFICATION_WEBHOOKS,
  sameWebhookUrl,
  webhookRegistrationProblem,
} from '../domain/webhook-rules';
import {
  looksLikeReceiverUrl,
  maskedUrl,
  type ManagedWebhook,
  type ObservedWebhook,
  planReconcile,
  sameAddress,
  type WebhookDrift,
} from '../domain/webhook-registry';
import { webhookRegistryInputProblems, webhookRegistryLimits } from '../domain/webhook-registry-input';
import { agentCalls } from './activity-proxies';
import { type AgentWebhooksInput } from '../shared/workflows';
import {
  disableWebhookUpdate,
  enableWebhookUpdate,
  listWebhooksQuery,
  reconcileWebhooksUpdate,
  type RegisterWebhookRequest,
  registerWebhookUpdate,
  removeWebhookUpdate,
  type WebhookListing,
  type WebhookView,
} from '../shared/messages';
import { RegistryState, SWEEP_TRIES } from './webhook-registry-state';
import { REGISTRY_MOVING_ON } from '../shared/failure-types';
import { agentPlatformVersioning } from '../shared/workflows';
import { setWorkflowOptions } from '@temporalio/workflow';
import { markdownLines } from '../../common/user-metadata';

/**
 * The patch under which a receiver's webhook removed to move it at the platform's limit stays in
 * the registry until its new one is made (runs of release 1.0.0 forgot it first, so a create
 * that failed left the tenant without it).
 */
const MOVE_KEPT_UNTIL_MADE = 'move-kept-until-made';

/**
 * The patch under which a second webhook at the address of one the registry keeps is removed, at
 * each comparison and with the removal of the one it keeps (a create the platform carries out
 * after its answer was lost or late makes one the retry's list did not show: every event came
 * twice, and it stayed live after `remove`).
 */
const DUPLICATES_REMOVED = 'duplicates-removed';

/**
 * The patch under which the address of a kept webhook removed whose others could not all go then
 * is kept and swept at each comparison (see `RegistryState.sweeping`): a run that left such
 * others before it made no call for them afterwards.
 */
const DUPLICATES_SWEPT = 'duplicates-swept';

/**
 * The patch under which an address is swept at most `SWEEP_TRIES` comparisons, then given up
 * (drift, a give-up counted, the registry marked for attention while something is live there): a
 * run that swept before it kept sweeping, and never ended, while the platform refused.
 */
const SWEEPS_BOUNDED = 'sweeps-bounded';

const refused = (message: string) =>
  ApplicationFailure.create({ type: 'InvalidWebhookRequest', message, nonRetryable: true });

const movingOnRefusal = () =>
  ApplicationFailure.create({
    type: REGISTRY_MOVING_ON,
    message:
      'the registry is moving to its next run (its history is full): send the change again in a moment',
    nonRetryable: true,
  });

/**
 * The webhook registry of one tenant of the earlier platform (`idv-agent-webhooks-<tenant>`): the
 * webhooks it should have. Changes are updates, one at a time; it compares with the platform on
 * a timer and on demand, and repairs or adopts what changed outside it (its drift policy). It
 * runs while it manages webhooks, continuing as new before its history grows large, and ends
 * at a timed comparison that finds it managing none.
 */
export async function agentWebhooks(input: AgentWebhooksInput): Promise<WebhookListing> {
  const problems = webhookRegistryInputProblems(input);
  if (problems.length > 0) throw refused(problems.join('; '));
  const { tenant } = input;
  const reconcileEveryMs = input.reconcileEveryMs ?? webhookRegistryLimits.reconcileEvery.defaultMs;
  const maxHistoryEvents = input.maxHistoryEvents ?? webhookRegistryLimits.maxHistoryEvents.default;
  const state = new RegistryState(
    tenant,
    { driftPolicy: input.driftPolicy ?? 'repair', reconcileEveryMs },
    input.carried,
  );

  // Changes and comparisons run one at a time, in arrival order: each reads the state the
  // previous one left. (A condition on a flag would release every waiter at once.)
  let queue: Promise<void> = Promise.resolve();
  /**
   * Set once the history is full: changes arriving from then on are refused (in their validator,
   * before anything reaches history) for the next run to take, so the drain before continuing as
   * new ends even while clients keep a change outstanding at every moment.
   */
  let movingOn = false;
  const refuseWhileMovingOn = () => {
    if (movingOn) throw movingOnRefusal();
  };
  let queued = 0;
  const exclusive = <T>(body: () => Promise<T>): Promise<T> => {
    queued += 1;
    const run = queue.then(body);
    const settled = () => {
      queued -= 1;
    };
    queue = run.then(settled, settled);
    return run;
  };
  const busy = () => queued > 0;

  const registrationProblem = (request: RegisterWebhookRequest): string | undefined => {
    if (typeof request !== 'object' || request === null) return 'the request must be {url?, type?}';
    const { url, type = 'Notification' } = request;
    if (url !== undefined && typeof url !== 'string') return 'url must be an absolute http(s) URL';
    if (typeof type !== 'string') return 'type must be Notification';
    if (url === undefined && state.webhooks.some((webhook) => webhook.receiver))
      return "the receiver's webhook is registered already";
    // One made outside (or by an earlier registry) is taken over: CreateWebhook finds it by URL.
    const external = url === undefined ? [] : state.external.filter((w) => sameWebhookUrl(w.url, url));
    const known = state.known().filter((webhook) => !external.includes(webhook as ObservedWebhook));
    return webhookRegistrationProblem({ url, type }, known);
  };
  const managedOrRefuse = (webhookId: unknown): ManagedWebhook => {
    const webhook = typeof webhookId === 'string' ? state.managed(webhookId) : undefined;
    if (!webhook) throw refused(`no webhook ${String(webhookId)} is managed by the registry of ${tenant}`);
    return webhook;
  };

  setHandler(listWebhooksQuery, () => state.listing());

  setHandler(
    registerWebhookUpdate,
    (request) =>
      exclusive(async (): Promise<WebhookView> => {
        // Checked again: an earlier registration may have taken the last place meanwhile.
        const problem = registrationProblem(request);
        if (problem) throw refused(problem);
        const type = request.type ?? 'Notification';
        const url = request.url ?? (await agentCalls.receiverWebhookUrl(tenant));
        const made = await agentCalls.ensureTenantWebhook({ tenant, url, type });
        if (made.enabled === false)
          await agentCalls.setTenantWebhookEnabled({ tenant, webhookId: made.id, enabled: true });
        const webhook: ManagedWebhook = {
          id: made.id,
          // The platform's spelling: reconciling compares with what it lists.
          url: made.url,
          type,
          enabled: true,
          receiver: request.url === undefined,
          createdAt: new Date().toISOString(),
        };
        state.put(webhook);
        return state.view(webhook);
      }),
    {
      validator: (request: RegisterWebhookRequest) => {
        refuseWhileMovingOn();
        const problem = registrationProblem(request);
        if (problem) throw refused(problem);
      },
    },
  );

  const setEnabled = (enabled: boolean) => (webhookId: string) =>
    exclusive(async (): Promise<WebhookView> => {
      const webhook = managedOrRefuse(webhookId);
      // One removed to move it is not at the platform: it is made again as the registry says.
      if (!webhook.removedToMove) await agentCalls.setTenantWebhookEnabled({ tenant, webhookId, enabled });
      const changed = { ...webhook, enabled };
      state.put(changed);
      return state.view(changed);
    });
  const validator = {
    validator: (webhookId: string) => {
      refuseWhileMovingOn();
      managedOrRefuse(webhookId);
    },
  };
  setHandler(enableWebhookUpdate, setEnabled(true), validator);
  setHandler(disableWebhookUpdate, setEnabled(false), validator);

  setHandler(
    removeWebhookUpdate,
    (webhookId) =>
      exclusive(async (): Promise<WebhookListing> => {
        if (!state.has(webhookId)) throw refused(`no webhook ${webhookId} in the registry of ${tenant}`);
        const kept = state.managed(webhookId);
        await agentCalls.removeTenantWebhook({ tenant, webhookId });
        state.forget(webhookId);
        // A kept webhook's address is to get nothing more: another there (see DUPLICATES_REMOVED)
        // goes too. Removing such another one leaves the kept one alone.
        if (kept && patched(DUPLICATES_REMOVED)) await removeExtrasAt(state, kept);
        return state.listing();
      }),
    {
      validator: (webhookId) => {
        refuseWhileMovingOn();
        if (!state.has(webhookId))
          throw refused(`no webhook ${String(webhookId)} in the registry of ${tenant}`);
      },
    },
  );

  setHandler(
    reconcileWebhooksUpdate,
    () =>
      exclusive(async () => {
        await reconcile(state);
        return state.listing();
      }),
    { validator: refuseWhileMovingOn },
  );

  const historyLarge = () => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= maxHistoryEvents;
  };
  for (;;) {
    showDetails(
      markdownLines([
        `**${state.webhooks.length} webhooks kept**`,
        ...(state.sweeping.length > 0
          ? [
              `Sweeping ${state.sweeping.length} addresses of removed webhooks: what is left there is removed at each comparison, ${SWEEP_TRIES} at most`,
            ]
          : []),
        `Next comparison with the platform: ${new Date(Date.now() + reconcileEveryMs).toISOString()}`,
      ]),
      () => registryMetadata(input.tenant).staticSummary,
    );
    const large = await condition(historyLarge, reconcileEveryMs, { summary: 'until the next comparison' });
    if (large) break;
    await exclusive(() => reconcile(state));
    // Nothing to keep (never registered, all removed, or a tenant without a key): the registry
    // ends rather than wake forever; the next change starts it again.
    if (state.webhooks.length === 0 && state.sweeping.length === 0 && !busy() && allHandlersFinished())
      return state.listing();
  }
  // Every change accepted finishes in this run; the next one starts from their result.
  movingOn = true;
  await condition(() => !busy() && allHandlersFinished());
  return await continueAsNew<typeof agentWebhooks>({ ...input, carried: state.carried() });
}

/**
 * Compares with the platform and repairs or adopts per the drift policy; never throws for the
 * platform. False when it gave up on something (the platform did not answer within the calls'
 * bound, or a repair was refused): counted, and the registry is marked for attention until a
 * comparison goes through.
 */
async function reconcile(state: RegistryState): Promise<boolean> {
  const well = await compare(state);
  if (!well) countGiveUp({ kind: 'registry', step: 'reconcile' });
  // A sweep given up needs a hand for as long as something is live at its address.
  markAttention(state, !well || state.abandoned.length > 0);
  return well;
}

/** Marks the registry for attention (shown by its status), or clears the mark. */
function markAttention(state: RegistryState, attention: boolean): void {
  if (attention === state.attention) return;
  state.attention = attention;
  upsertSearchAttributes([{ key: IdvStatus, value: attention ? NEEDS_ATTENTION : 'ok' }]);
}

/**
 * After a kept webhook was removed: the others at its address that the registry does not keep
 * go too. Its removal stands whatever becomes of them; one not removed (or a listing that
 * failed) is noted as drift and marks the registry for attention, since no comparison takes it
 * for extra once nothing kept is at its address.
 */
async function removeExtrasAt(state: RegistryState, removed: ManagedWebhook): Promise<void> {
  let outcomes: Map<string, string>;
  try {
    const observed = await agentCalls.listTenantWebhooks(state.tenant);
    const extras = observed.filter(
      (webhook) => webhook.id !== removed.id && !state.managed(webhook.id) && sameAddress(webhook, removed),
    );
    outcomes = await removeDuplicates(state, extras);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    outcomes = new Map([
      [removed.id, `repair failed: others at its address not looked for: ${failureMessage(error)}`],
    ]);
  }
  const at = new Date().toISOString();
  state.noteDrift(
    [...outcomes].map(([webhookId, outcome]) => ({
      webhookId,
      kind: 'duplicate' as const,
      seenAt: at,
      outcome,
    })),
  );
  if ([...outcomes.values()].some((outcome) => outcome !== 'removed')) {
    countGiveUp({ kind: 'registry', step: 'remove' });
    markAttention(state, true);
    if (patched(DUPLICATES_SWEPT)) state.sweepLater(removed);
  }
}

async function compare(state: RegistryState): Promise<boolean> {
  const { tenant } = state;
  const at = new Date().toISOString();
  // Before the listing: a listing that fails for good (the tenant's key removed) ends a sweep too.
  if (state.sweeping.length > 0 && patched(SWEEPS_BOUNDED)) giveUpSweeps(state, at);
  let observed: ObservedWebhook[];
  try {
    observed = await agentCalls.listTenantWebhooks(tenant);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    state.lastReconcile = { at, ok: false, error: failureMessage(error) };
    return false;
  }
  state.abandonedStillLive(observed);
  const receiverUrl = await currentReceiverUrl(state, observed);
  const plan = planReconcile(
    state.webhooks,
    observed,
    state.settings.driftPolicy,
    receiverUrl === undefined ? undefined : { url: receiverUrl, now: at },
  );
  state.external = plan.external;
  const outcomes = new Map<string, string>();
  if (state.settings.driftPolicy === 'adopt') {
    state.webhooks = plan.managed;
    for (const drift of plan.drift) outcomes.set(drift.webhookId, 'adopted');
  } else {
    // Repairs keep the registry's own webhooks; the receiver's webhook found again joins them.
    for (const webhook of plan.managed) if (!state.managed(webhook.id)) state.put(webhook);
  }
  for (const drift of plan.drift) if (drift.kind === 'found') outcomes.set(drift.webhookId, 'managed');
  let repaired = true;
  // What is left at the address of a kept webhook removed (see removeExtrasAt) goes too; the
  // address is swept once nothing is left there.
  const left = state.leftAtSwept(plan.external, plan.duplicates);
  const extras = [...plan.duplicates, ...left];
  const removals =
    extras.length > 0 && patched(DUPLICATES_REMOVED)
      ? await removeDuplicates(state, extras)
      : new Map<string, string>();
  state.sweptOnce(left, removals);
  for (const [webhookId, outcome] of removals) {
    plan.drift.push({ webhookId, kind: 'duplicate' });
    outcomes.set(webhookId, outcome);
    if (outcome !== 'removed') repaired = false;
  }
  for (const repair of plan.repairs) {
    const webhookId = repair.kind === 'set-enabled' ? repair.webhookId : repair.webhook.id;
    try {
      outcomes.set(webhookId, await applyRepair(state, repair));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      outcomes.set(webhookId, `repair failed: ${failureMessage(error)}`);
      repaired = false;
    }
  }
  const drift: WebhookDrift[] = plan.drift.map((found) => ({
    ...found,
    seenAt: at,
    outcome: outcomes.get(found.webhookId) ?? 'reported',
  }));
  state.noteDrift(drift);
  state.lastReconcile = { at, ok: true };
  return repaired;
}

/**
 * Gives up the addresses swept {@link SWEEP_TRIES} times already (the registry stays marked for
 * attention while something is live there): each enabled webhook last seen there is noted as
 * drift for removal by hand, or the kept one removed there when none was seen, and the give-up
 * counted.
 */
function giveUpSweeps(state: RegistryState, at: string): void {
  const overdue = state.sweepTried();
  if (overdue.length === 0) return;
  countGiveUp({ kind: 'registry', step: 'sweep' });
  const outcome = `repair failed: left at a removed webhook's address after ${SWEEP_TRIES} comparisons; remove it at the platform`;
  state.noteDrift(
    overdue.flatMap(({ address, seen }) =>
      (seen.length > 0
        ? seen.map((webhook) => webhook.id)
        : [address.keptId ?? maskedUrl({ url: address.url, receiver: false })]
      ).map((webhookId) => ({ webhookId, kind: 'duplicate' as const, seenAt: at, outcome })),
    ),
  );
}

/**
 * Removes webhooks at the platform that duplicate one the registry keeps (or kept: see
 * DUPLICATES_REMOVED); resolves each one's outcome, `removed` or `repair failed: <why>`.
 */
async function removeDuplicates(
  state: RegistryState,
  duplicates: readonly ObservedWebhook[],
): Promise<Map<string, string>> {
  const outcomes = new Map<string, string>();
  for (const duplicate of duplicates) {
    try {
      await agentCalls.removeTenantWebhook({ tenant: state.tenant, webhookId: duplicate.id });
      state.forget(duplicate.id);
      outcomes.set(duplicate.id, 'removed');
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      outcomes.set(duplicate.id, `repair failed: ${failureMessage(error)}`);
    }
  }
  return outcomes;
}

async function applyRepair(
  state: RegistryState,
  repair: ReturnType<typeof planReconcile>['repairs'][number],
): Promise<string> {
  const { tenant } = state;
  if (repair.kind === 'set-enabled') {
    await agentCalls.setTenantWebhookEnabled({
      tenant,
      webhookId: repair.webhookId,
      enabled: repair.enabled,
    });
    return repair.enabled ? 'enabled' : 'disabled';
  }
  const { webhook } = repair;
  // The receiver's URL is made afresh: its address may have moved since.
  const url =
    repair.kind === 'repoint'
      ? repair.url
      : webhook.receiver
        ? await agentCalls.receiverWebhookUrl(tenant)
        : webhook.url;
  // Moved: the new one is made before the old one goes, so no delivery finds neither; at the
  // platform's limit there is no room for both, so the old one (dead anyway) goes first, and
  // stays in the registry until the new one is made: a create that fails leaves it to be made
  // at the next comparison, not forgotten.
  const atLimit =
    state.known().filter((known) => known.type === 'Notification').length >= MAX_NOTIFICATION_WEBHOOKS;
  const removeOld = async () => {
    await agentCalls.removeTenantWebhook({ tenant, webhookId: webhook.id });
    state.forget(webhook.id);
  };
  if (repair.kind === 'repoint' && atLimit) {
    if (patched(MOVE_KEPT_UNTIL_MADE)) {
      await agentCalls.removeTenantWebhook({ tenant, webhookId: webhook.id });
      state.put({ ...webhook, removedToMove: true });
    } else await removeOld();
  }
  const made = await agentCalls.ensureTenantWebhook({ tenant, url, type: webhook.type });
  if (made.enabled !== undefined && made.enabled !== webhook.enabled)
    await agentCalls.setTenantWebhookEnabled({ tenant, webhookId: made.id, enabled: webhook.enabled });
  if (repair.kind === 'repoint' && !atLimit && made.id !== webhook.id) await removeOld();
  const { removedToMove: _made, ...wanted } = webhook;
  state.put({ ...wanted, id: made.id, url }, webhook.id);
  return `${repair.kind === 'repoint' ? 'moved to' : 'recreated as'} ${made.id}`;
}

/** The receiver's URL when it matters (a receiver webhook managed or seen); undefined without a receiver. */
async function currentReceiverUrl(
  state: RegistryState,
  observed: ObservedWebhook[],
): Promise<string | undefined> {
  const matters =
    state.webhooks.some((webhook) => webhook.receiver) ||
    observed.some((webhook) => looksLikeReceiverUrl(webhook.url));
  if (!matters) return undefined;
  try {
    return await agentCalls.receiverWebhookUrl(state.tenant);
  } catch (error) {
    if (error instanceof ActivityFailure) return undefined;
    throw error;
  }
}

function failureMessage(error: ActivityFailure): string {
  return error.cause?.message ?? error.message;
}

setWorkflowOptions({ versioningBehavior: agentPlatformVersioning.registry }, agentWebhooks);
