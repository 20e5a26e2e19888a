import { createAgentClient } from '../../api/agent/agent-client';
import {
  WebhookRegistryClient,
  WebhookRegistryError,
} from '../../agent-platform/client/webhook-registry-client';
import { agentWebhooksWorkflowId } from '../../agent-platform/domain/agent-tenants';
import { SWEEP_TRIES } from '../../agent-platform/workflows/webhook-registry-state';
import { eventually } from '../harness/eventually';
import { listFailedWork } from '../../agent-platform/client/failed-work';
import { useVerificationStack } from '../harness/verification-stack';
import { listedAsFailed } from '../harness/failed-work';

const TENANTS = { 'tenant-a': 'agent_key_tenant_a_0123456789', 'tenant-b': 'agent_key_tenant_b_0123456789' };

describe('agentWebhooks: one registry workflow per tenant', () => {
  const stack = useVerificationStack({ agentKeys: TENANTS }, { receiver: true });
  const platform = (tenant: keyof typeof TENANTS) =>
    createAgentClient({ baseUrl: stack().emulator.agentBaseUrl, apiKey: TENANTS[tenant] });
  const calls = async (operation: string) => {
    const counters = await stack().control('GET', '/counters');
    return (counters.byOperation as Record<string, number>)[operation] ?? 0;
  };
  const platformCalls = async () =>
    (await calls('ListWebhooks')) +
    (await calls('CreateWebhook')) +
    (await calls('EnableWebhook')) +
    (await calls('DisableWebhook')) +
    (await calls('RemoveWebhook'));
  // Each test starts with fresh registries and no webhooks at the platform.
  afterEach(async () => {
    for (const tenant of Object.keys(TENANTS) as Array<keyof typeof TENANTS>) {
      await stack()
        .client.workflow.getHandle(agentWebhooksWorkflowId(tenant))
        .terminate()
        .catch(() => undefined);
      const client = platform(tenant);
      for (const webhook of await client.listWebhooks()) await client.removeWebhook(webhook.id);
      await client.close();
    }
  });

  it("registers the receiver's own URL with the tenant's token, and never shows the token", async () => {
    const view = await stack().webhooks.register('tenant-a');
    expect(view).toMatchObject({ type: 'Notification', enabled: true, managed: true, receiver: true });
    expect(view.url).toBe(`${stack().receiver?.url}/agent/tenant-a/****`);
    const client = platform('tenant-a');
    const [registered] = await client.listWebhooks();
    await client.close();
    expect(registered?.url).toBe(stack().tokens.webhookUrl(stack().receiver?.url ?? '', 'tenant-a'));
    expect(registered?.id).toBe(view.id);
    const listing = await stack().webhooks.list('tenant-a');
    expect(JSON.stringify(listing)).not.toContain(stack().tokens.tenantToken('tenant-a'));
  });

  it('is listed as failed work once stopped from outside, with what it forgot, until started again', async () => {
    await stack().webhooks.register('tenant-b');
    const handle = stack().client.workflow.getHandle(agentWebhooksWorkflowId('tenant-b'));
    await handle.terminate('by hand');
    const stopped = await listedAsFailed(stack().client, stack().taskQueue, handle.workflowId);
    expect(stopped).toMatchObject({ type: 'agentWebhooks', state: 'terminated' });
    expect(stopped.reason).toMatch(/which of them it managed or disabled is forgotten/);
    expect(stopped.next).toContain('idv webhooks list --tenant tenant-b');
    // Started again (any change or listing does): no longer listed.
    await stack().webhooks.list('tenant-b');
    const failed = await listFailedWork(stack().client, { taskQueue: stack().taskQueue });
    expect(failed.find((work) => work.workflowId === handle.workflowId)).toBeUndefined();
  });

  it('refuses a sixth Notification webhook before any call to the platform', async () => {
    for (let n = 1; n <= 5; n += 1)
      await stack().webhooks.register('tenant-a', { url: `https://hooks.example/${n}` });
    const before = await platformCalls();
    const refused = await stack()
      .webhooks.register('tenant-a', { url: 'https://hooks.example/6' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebhookRegistryError);
    expect((refused as Error).message).toMatch(/at most 5 Notification webhooks/);
    expect(await platformCalls()).toBe(before);
    expect((await stack().webhooks.list('tenant-a')).webhooks).toHaveLength(5);
  });

  it('takes concurrent changes one at a time: the limit and duplicate URLs hold', async () => {
    for (let n = 1; n <= 4; n += 1)
      await stack().webhooks.register('tenant-a', { url: `https://hooks.example/${n}` });
    const creates = await calls('CreateWebhook');
    const racing = await Promise.allSettled([
      stack().webhooks.register('tenant-a', { url: 'https://hooks.example/x' }),
      stack().webhooks.register('tenant-a', { url: 'https://hooks.example/y' }),
      stack().webhooks.register('tenant-a', { url: 'https://hooks.example/x' }),
    ]);
    expect(racing.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of racing.filter((settled) => settled.status === 'rejected'))
      expect(String(result.reason)).toMatch(/at most 5 Notification webhooks|registered already/);
    expect((await calls('CreateWebhook')) - creates).toBe(1);
    const client = platform('tenant-a');
    expect(await client.listWebhooks()).toHaveLength(5);
    await client.close();
  });

  it('takes its receiver webhook back after a restart, its token still hidden', async () => {
    const view = await stack().webhooks.register('tenant-a');
    await stack().client.workflow.getHandle(agentWebhooksWorkflowId('tenant-a')).terminate();
    const listing = await stack().webhooks.list('tenant-a');
    expect(listing.webhooks).toEqual([
      expect.objectContaining({ id: view.id, managed: true, receiver: true }),
    ]);
    expect(listing.drift).toEqual([
      expect.objectContaining({ webhookId: view.id, kind: 'found', outcome: 'managed' }),
    ]);
    expect(JSON.stringify(listing)).not.toContain(stack().tokens.tenantToken('tenant-a'));
    expect(await stack().webhooks.disable('tenant-a', view.id)).toMatchObject({ enabled: false });
  });

  it('takes over a webhook made outside it when asked to register the same URL', async () => {
    const client = platform('tenant-b');
    const outside = await client.createWebhook({
      url: 'https://hooks.example/outside',
      type: 'Notification',
    });
    expect((await stack().webhooks.reconcile('tenant-b')).webhooks).toEqual([
      expect.objectContaining({ id: outside.id, managed: false }),
    ]);
    const creates = await calls('CreateWebhook');
    const view = await stack().webhooks.register('tenant-b', { url: 'https://HOOKS.example/outside' });
    expect(view).toMatchObject({ id: outside.id, managed: true });
    expect(await calls('CreateWebhook')).toBe(creates);
    expect(await client.listWebhooks()).toHaveLength(1);
    await client.close();
  });

  it.each([
    [{ url: '/relative/path' }, /absolute http\(s\) URL/],
    [{ url: 'ftp://hooks.example/x' }, /absolute http\(s\) URL/],
    [{ url: 'https://hooks.example/e', type: 'DelegatedEndorser' }, /Endorser webhooks .* not available/],
    [{ url: 'https://hooks.example/u', type: 'Carrier pigeon' }, /type must be Notification/],
  ])('refuses %j before any call to the platform', async (request, message) => {
    await stack().webhooks.list('tenant-b');
    const before = await platformCalls();
    await expect(stack().webhooks.register('tenant-b', request)).rejects.toThrow(message);
    expect(await platformCalls()).toBe(before);
  });

  it('refuses to enable, disable or remove a webhook it does not know', async () => {
    await expect(stack().webhooks.disable('tenant-b', 'no-such-id')).rejects.toThrow(
      /no webhook no-such-id is managed by the registry of tenant-b/,
    );
    await expect(stack().webhooks.remove('tenant-b', 'no-such-id')).rejects.toThrow(/no webhook no-such-id/);
  });

  it('disables, enables and removes a webhook at the platform', async () => {
    const view = await stack().webhooks.register('tenant-b', { url: 'https://hooks.example/b' });
    expect(await stack().webhooks.disable('tenant-b', view.id)).toMatchObject({ enabled: false });
    const client = platform('tenant-b');
    expect((await client.listWebhooks())[0]).toMatchObject({ id: view.id, enabled: false });
    expect(await stack().webhooks.enable('tenant-b', view.id)).toMatchObject({ enabled: true });
    const listing = await stack().webhooks.remove('tenant-b', view.id);
    expect(listing.webhooks).toEqual([]);
    expect(await client.listWebhooks()).toEqual([]);
    await client.close();
  });

  it('removes a webhook whose first RemoveWebhook answered 404 while the platform still lists it', async () => {
    const view = await stack().webhooks.register('tenant-b', { url: 'https://hooks.example/gone' });
    // The interface defines no 404: a gateway's, or a replica's behind, proves nothing.
    await stack().control('PUT', '/faults', {
      operation: 'RemoveWebhook',
      errorRate: 1,
      errorStatus: 404,
      count: 1,
    });
    const listing = await stack().webhooks.remove('tenant-b', view.id);
    expect(listing.webhooks).toEqual([]);
    const client = platform('tenant-b');
    expect(await client.listWebhooks()).toEqual([]);
    await client.close();
    expect(await calls('RemoveWebhook')).toBeGreaterThanOrEqual(2);
  });

  it('removes a second webhook at the address of one it keeps, at a comparison and with the removal', async () => {
    const url = 'https://hooks.example/twice';
    const view = await stack().webhooks.register('tenant-b', { url });
    const client = platform('tenant-b');
    // What a create the platform carried out after its answer was lost (or came late) leaves.
    const late = await client.createWebhook({ url, type: 'Notification' });
    const listing = await stack().webhooks.reconcile('tenant-b');
    expect(listing.drift).toContainEqual(
      expect.objectContaining({ webhookId: late.id, kind: 'duplicate', outcome: 'removed' }),
    );
    expect((await client.listWebhooks()).map((webhook) => webhook.id)).toEqual([view.id]);
    // One that lands after the last comparison goes with the removal of the one it duplicates.
    await client.createWebhook({ url, type: 'Notification' });
    expect((await stack().webhooks.remove('tenant-b', view.id)).webhooks).toEqual([]);
    expect(await client.listWebhooks()).toEqual([]);
    await client.close();
  });

  /**
   * A webhook the registry keeps at `url` and an extra one made at the platform at the same
   * address; then the platform refuses one RemoveWebhook, after `skip` that go through.
   */
  async function keptAndExtra(url: string, skip = 0) {
    const view = await stack().webhooks.register('tenant-b', { url });
    const client = platform('tenant-b');
    const extra = await client.createWebhook({ url, type: 'Notification' });
    await stack().control('PUT', '/faults', {
      operation: 'RemoveWebhook',
      errorRate: 1,
      errorStatus: 403,
      skip,
      count: 1,
    });
    return { view, client, extra };
  }

  it('removes only the extra webhook when asked to, leaving the one it keeps at that address', async () => {
    // Its removal at the comparison is refused once: the registry lists it, extra.
    const { view, client, extra } = await keptAndExtra('https://hooks.example/kept');
    const compared = await stack().webhooks.reconcile('tenant-b');
    expect(compared.webhooks.map((webhook) => [webhook.id, webhook.managed])).toEqual([
      [view.id, true],
      [extra.id, false],
    ]);
    const listing = await stack().webhooks.remove('tenant-b', extra.id);
    expect(listing.webhooks.map((webhook) => webhook.id)).toEqual([view.id]);
    expect((await client.listWebhooks()).map((webhook) => webhook.id)).toEqual([view.id]);
    await client.close();
  });

  it('removes at the next comparison what could not be removed with the kept webhook at its address', async () => {
    // The kept one's removal goes through; the extra's is refused once.
    const { view, client, extra } = await keptAndExtra('https://hooks.example/swept', 1);
    const listing = await stack().webhooks.remove('tenant-b', view.id);
    expect(listing.drift).toContainEqual(
      expect.objectContaining({
        webhookId: extra.id,
        kind: 'duplicate',
        outcome: expect.stringMatching(/^repair failed/),
      }),
    );
    expect((await client.listWebhooks()).map((webhook) => webhook.id)).toEqual([extra.id]);
    const compared = await stack().webhooks.reconcile('tenant-b');
    expect(compared.drift).toContainEqual(
      expect.objectContaining({ webhookId: extra.id, kind: 'duplicate', outcome: 'removed' }),
    );
    expect(await client.listWebhooks()).toEqual([]);
    await client.close();
  });

  it('gives the sweep of an address up, visibly, after a bounded number of comparisons the platform refuses', async () => {
    const { view, client, extra } = await keptAndExtra('https://hooks.example/refused', 1);
    // Every removal after the kept one's is refused.
    await stack().control('PUT', '/faults', {
      operation: 'RemoveWebhook',
      errorRate: 1,
      errorStatus: 403,
      skip: 1,
    });
    await stack().webhooks.remove('tenant-b', view.id);
    for (let n = 0; n < SWEEP_TRIES; n += 1) await stack().webhooks.reconcile('tenant-b');
    const removals = await calls('RemoveWebhook');
    const listing = await stack().webhooks.reconcile('tenant-b');
    await stack().control('DELETE', '/faults');
    expect(await calls('RemoveWebhook')).toBe(removals);
    expect(listing.drift).toContainEqual(
      expect.objectContaining({
        webhookId: extra.id,
        kind: 'duplicate',
        outcome: expect.stringMatching(/after 6 comparisons; remove it at the platform$/),
      }),
    );
    // Nothing is swept any more: the next comparison leaves the extra alone, and the registry
    // needs a hand for as long as it is live; once removed by hand, no more.
    const registry = stack().client.workflow.getHandle(agentWebhooksWorkflowId('tenant-b'));
    const status = async () => (await registry.describe()).searchAttributes.IdvStatus?.[0];
    await stack().webhooks.reconcile('tenant-b');
    expect((await client.listWebhooks()).map((webhook) => webhook.id)).toEqual([extra.id]);
    expect(await status()).toBe('needs-attention');
    await client.removeWebhook(extra.id);
    await stack().webhooks.reconcile('tenant-b');
    expect(await status()).toBe('ok');
    await client.close();
  });

  it('takes over the webhook made at the address of one deleted at the platform, rather than removing it', async () => {
    const url = 'https://hooks.example/rotated';
    const view = await stack().webhooks.register('tenant-a', { url });
    const client = platform('tenant-a');
    await client.removeWebhook(view.id);
    const made = await client.createWebhook({ url, type: 'Notification' });
    const creates = await calls('CreateWebhook');
    const listing = await stack().webhooks.reconcile('tenant-a');
    expect(listing.webhooks.filter((webhook) => webhook.managed).map((webhook) => webhook.id)).toEqual([
      made.id,
    ]);
    expect((await client.listWebhooks()).map((webhook) => webhook.id)).toEqual([made.id]);
    expect(await calls('CreateWebhook')).toBe(creates);
    await client.close();
  });

  it('repairs drift: a webhook deleted or disabled through the platform directly is put back, and reported', async () => {
    const deleted = await stack().webhooks.register('tenant-a', { url: 'https://hooks.example/deleted' });
    const disabled = await stack().webhooks.register('tenant-a');
    const client = platform('tenant-a');
    await client.removeWebhook(deleted.id);
    await client.disableWebhook(disabled.id);
    const listing = await stack().webhooks.reconcile('tenant-a');
    const atPlatform = await client.listWebhooks();
    await client.close();
    const recreated = atPlatform.find((webhook) => webhook.url === 'https://hooks.example/deleted');
    expect(recreated).toMatchObject({ enabled: true });
    expect(recreated?.id).not.toBe(deleted.id);
    expect(atPlatform.find((webhook) => webhook.id === disabled.id)).toMatchObject({ enabled: true });
    expect(listing.drift).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          webhookId: deleted.id,
          kind: 'deleted',
          outcome: `recreated as ${recreated?.id}`,
        }),
        expect.objectContaining({ webhookId: disabled.id, kind: 'disabled', outcome: 'enabled' }),
      ]),
    );
    expect(listing.webhooks.map((webhook) => webhook.id).sort()).toEqual([recreated?.id, disabled.id].sort());
  });

  it.each(['repair', 'adopt'] as const)(
    'at the limit, a receiver webhook whose move failed after the old one went is made at a later comparison (%s)',
    async (driftPolicy) => {
      const registry = new WebhookRegistryClient({
        client: stack().client,
        taskQueue: stack().taskQueue,
        settings: { driftPolicy },
      });
      const current = stack().tokens.webhookUrl(stack().receiver?.url ?? '', 'tenant-a');
      // The receiver's webhook under a token from before a new secret, and four of the tenant's.
      const stale = current.replace(/[^/]+$/, 'an-earlier-token');
      const client = platform('tenant-a');
      await client.createWebhook({ url: stale, type: 'Notification' });
      for (let n = 1; n <= 4; n += 1)
        await client.createWebhook({ url: `https://hooks.example/${n}`, type: 'Notification' });
      // No room for both: the old one goes first, then the platform refuses the new one.
      await stack().control('PUT', '/faults', {
        operation: 'CreateWebhook',
        errorRate: 1,
        errorStatus: 400,
        count: 10,
      });
      const failed = await registry.reconcile('tenant-a');
      expect(failed.drift).toContainEqual(
        expect.objectContaining({ kind: 'found', outcome: expect.stringMatching(/^repair failed/) }),
      );
      expect((await client.listWebhooks()).map((webhook) => webhook.url)).not.toContain(stale);
      // Disabled meanwhile: the registry keeps the choice, and makes it so once the webhook is made.
      const moving = failed.webhooks.find((webhook) => webhook.receiver);
      expect(await registry.disable('tenant-a', moving?.id ?? '')).toMatchObject({ enabled: false });
      await stack().control('DELETE', '/faults');
      await registry.reconcile('tenant-a');
      const listing = await registry.reconcile('tenant-a');
      const atPlatform = await client.listWebhooks();
      await client.close();
      expect(atPlatform.find((webhook) => webhook.url === current)).toMatchObject({ enabled: false });
      expect(atPlatform).toHaveLength(5);
      expect(listing.webhooks.filter((webhook) => webhook.receiver)).toEqual([
        expect.objectContaining({ managed: true, enabled: false }),
      ]);
    },
  );

  it('notices drift on its own timer', async () => {
    const registries = new WebhookRegistryClient({
      client: stack().client,
      taskQueue: stack().taskQueue,
      settings: { reconcileEveryMs: 1_000, driftPolicy: 'adopt' },
    });
    // Settings apply when a registry starts: this one starts here.
    const view = await registries.register('tenant-b', { url: 'https://hooks.example/adopted' });
    const client = platform('tenant-b');
    await client.disableWebhook(view.id);
    const listing = await eventually(async () => {
      const current = await registries.list('tenant-b');
      return current.drift.some((drift) => drift.webhookId === view.id) ? current : undefined;
    }, 'the timer to notice the disabled webhook');
    // Adopt: the platform's state becomes the registry's, nothing is called to undo it.
    expect(listing.drift.at(-1)).toMatchObject({ kind: 'disabled', outcome: 'adopted' });
    expect(listing.webhooks.find((webhook) => webhook.id === view.id)).toMatchObject({ enabled: false });
    expect((await client.listWebhooks())[0]).toMatchObject({ enabled: false });
    await client.close();
  });

  it('ends at a timed comparison that finds it managing no webhook', async () => {
    const registries = new WebhookRegistryClient({
      client: stack().client,
      taskQueue: stack().taskQueue,
      settings: { reconcileEveryMs: 1_000 },
    });
    const view = await registries.register('tenant-b', { url: 'https://hooks.example/short-lived' });
    await registries.remove('tenant-b', view.id);
    const handle = stack().client.workflow.getHandle(agentWebhooksWorkflowId('tenant-b'));
    await expect(handle.result()).resolves.toMatchObject({ tenant: 'tenant-b', webhooks: [] });
    // The next change starts it again.
    expect(await registries.register('tenant-b', { url: 'https://hooks.example/again' })).toMatchObject({
      managed: true,
    });
  });

  it('continues as new before its history grows large, keeping its webhooks and drift', async () => {
    const registries = new WebhookRegistryClient({
      client: stack().client,
      taskQueue: stack().taskQueue,
      settings: { maxHistoryEvents: 20 },
    });
    const handle = stack().client.workflow.getHandle(agentWebhooksWorkflowId('tenant-b'));
    const first = await registries.register('tenant-b', { url: 'https://hooks.example/kept-1' });
    const { runId: firstRun } = await handle.describe();
    const second = await registries.register('tenant-b', { url: 'https://hooks.example/kept-2' });
    await registries.disable('tenant-b', second.id);
    await registries.reconcile('tenant-b');
    const later = await eventually(async () => {
      const { runId } = await handle.describe();
      return runId !== firstRun ? runId : undefined;
    }, 'a new run');
    expect(later).not.toBe(firstRun);
    const listing = await registries.list('tenant-b');
    expect(listing.webhooks).toEqual([
      expect.objectContaining({ id: first.id, enabled: true }),
      expect.objectContaining({ id: second.id, enabled: false }),
    ]);
  });

  it('continues as new while clients keep a change outstanding at every moment', async () => {
    const registries = new WebhookRegistryClient({
      client: stack().client,
      taskQueue: stack().taskQueue,
      settings: { maxHistoryEvents: 20 },
    });
    const handle = stack().client.workflow.getHandle(agentWebhooksWorkflowId('tenant-a'));
    const webhook = await registries.register('tenant-a', { url: 'https://hooks.example/busy' });
    const { runId: firstRun } = await handle.describe();
    // Two clients, each sending its next change as soon as the last is answered: one is always
    // queued while the other runs.
    const changes = 16;
    const client = async (enabled: boolean) => {
      for (let sent = 0; sent < changes / 2; sent += 1)
        if (enabled) await registries.enable('tenant-a', webhook.id);
        else await registries.disable('tenant-a', webhook.id);
    };
    await Promise.all([client(true), client(false)]);
    // The first run took only the changes accepted before its history was full; the others
    // went to later runs, each answered.
    const history = await stack().client.workflow.getHandle(handle.workflowId, firstRun).fetchHistory();
    const events = history.events ?? [];
    const accepted = events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length;
    expect(accepted).toBeLessThan(changes / 2);
    expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
  }, 60_000);
});
