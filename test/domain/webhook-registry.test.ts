import { ambiguousTenants } from '../../agent-platform/domain/agent-tenants';
import { maskedUrl, type ManagedWebhook, planReconcile } from '../../agent-platform/domain/webhook-registry';
import { webhookRegistrationProblem } from '../../agent-platform/domain/webhook-rules';
import { ConfigError, loadConfig } from '../../workers/config';
import { newReferenceSchema, referenceSchema } from '../../verification/domain/verification';
import { RegistryState, SWEEP_TRIES } from '../../agent-platform/workflows/webhook-registry-state';

const receiverUrl = 'https://idv.example/agent/acme/TOKEN-NOW';
const managed = (overrides: Partial<ManagedWebhook> = {}): ManagedWebhook => ({
  id: 'w-1',
  url: 'https://hooks.example/a',
  type: 'Notification',
  enabled: true,
  receiver: false,
  createdAt: '2026-11-23T00:00:00.000Z',
  ...overrides,
});

describe('planReconcile', () => {
  it('finds nothing to do when the platform matches', () => {
    const plan = planReconcile(
      [managed()],
      [{ id: 'w-1', url: 'https://hooks.example/a', type: 'Notification', enabled: true }],
      'repair',
    );
    expect(plan).toEqual({ drift: [], repairs: [], managed: [managed()], external: [], duplicates: [] });
  });

  it('finds a second webhook at the address of one it keeps, however the address is written', () => {
    const twice = { id: 'w-2', url: 'https://HOOKS.example:443/a', type: 'Notification', enabled: true };
    const other = { id: 'w-3', url: 'https://hooks.example/b', type: 'Notification', enabled: true };
    for (const policy of ['repair', 'adopt'] as const) {
      const plan = planReconcile(
        [managed()],
        [{ id: 'w-1', url: 'https://hooks.example/a', type: 'Notification', enabled: true }, twice, other],
        policy,
      );
      expect(plan.duplicates).toEqual([twice]);
      expect(plan.external).toEqual([twice, other]);
    }
  });

  it('takes no webhook for extra at the address of a kept one that delivers nothing after the comparison, nor one that delivers nothing itself', () => {
    const other = { id: 'w-2', url: 'https://hooks.example/a', type: 'Notification', enabled: true };
    for (const policy of ['repair', 'adopt'] as const) {
      // The kept one deleted at the platform (a re-creation takes the other over).
      expect(planReconcile([managed()], [other], policy).duplicates).toEqual([]);
      // Disabled there: adopted so, it delivers nothing; repaired, it is enabled again.
      expect(
        planReconcile([managed()], [{ ...other, id: 'w-1', enabled: false }, other], policy).duplicates,
      ).toEqual(policy === 'adopt' ? [] : [other]);
      // The other one disabled: it doubles nothing.
      expect(
        planReconcile(
          [managed()],
          [
            { ...other, id: 'w-1' },
            { ...other, enabled: false },
          ],
          policy,
        ).duplicates,
      ).toEqual([]);
    }
  });

  it('moves the receiver’s webhook when the receiver’s address changed, whatever the policy', () => {
    const old = managed({ url: 'https://idv.example/agent/acme/TOKEN-OLD', receiver: true });
    for (const policy of ['repair', 'adopt'] as const) {
      const plan = planReconcile([old], [{ ...old, enabled: true }], policy, {
        url: receiverUrl,
        now: 'now',
      });
      expect(plan.drift).toEqual([{ webhookId: 'w-1', kind: 'moved' }]);
      expect(plan.repairs).toEqual([{ kind: 'repoint', webhook: old, url: receiverUrl }]);
    }
  });

  it('takes back the receiver’s webhook found unmanaged at the platform', () => {
    const plan = planReconcile(
      [],
      [{ id: 'w-9', url: receiverUrl, type: 'Notification', enabled: true }],
      'repair',
      {
        url: receiverUrl,
        now: '2026-11-23T01:00:00.000Z',
      },
    );
    expect(plan.drift).toEqual([{ webhookId: 'w-9', kind: 'found' }]);
    expect(plan.managed).toEqual([
      {
        id: 'w-9',
        url: receiverUrl,
        type: 'Notification',
        enabled: true,
        receiver: true,
        createdAt: '2026-11-23T01:00:00.000Z',
      },
    ]);
    expect(plan.external).toEqual([]);
  });

  it('takes back a receiver webhook with an old token and moves it to the current URL', () => {
    const stale = {
      id: 'w-7',
      url: 'https://idv.example/agent/acme/TOKEN-OLD',
      type: 'Notification',
      enabled: true,
    };
    const plan = planReconcile([], [stale], 'repair', { url: receiverUrl, now: 'now' });
    const taken = { ...stale, receiver: true, createdAt: 'now' };
    expect(plan.managed).toEqual([taken]);
    expect(plan.repairs).toEqual([{ kind: 'repoint', webhook: taken, url: receiverUrl }]);
  });

  it('under adopt, forgets a webhook deleted outside and keeps one toggled outside as it is now', () => {
    const kept = managed({ id: 'w-2' });
    const plan = planReconcile(
      [managed(), kept],
      [{ id: 'w-2', url: kept.url, type: 'Notification', enabled: false }],
      'adopt',
    );
    expect(plan.managed).toEqual([{ ...kept, enabled: false }]);
    expect(plan.repairs).toEqual([]);
    expect(plan.drift).toEqual([
      { webhookId: 'w-1', kind: 'deleted' },
      { webhookId: 'w-2', kind: 'disabled' },
    ]);
  });
});

describe('webhook URLs', () => {
  it('hide what looks like a receiver token, managed or not', () => {
    expect(maskedUrl({ url: receiverUrl, receiver: false })).toBe('https://idv.example/agent/acme/****');
    expect(maskedUrl({ url: 'https://hooks.example/a', receiver: false })).toBe('https://hooks.example/a');
  });

  it('hide the credentials and query of a URL of one’s own, where secrets often travel', () => {
    const own = { url: 'https://user:s3cret@hooks.example/a?sig=abc&t=1', receiver: false };
    expect(maskedUrl(own)).toBe('https://hooks.example/a?****');
    const state = new RegistryState('acme', { driftPolicy: 'repair', reconcileEveryMs: 1_000 }, undefined);
    state.put({ ...own, id: 'w-1', type: 'Notification', enabled: true, createdAt: 'now' });
    state.external = [{ id: 'w-2', url: 'https://hooks.example/b?token=xyz', type: 'Notification' }];
    const listed = JSON.stringify(state.listing());
    expect(listed).not.toMatch(/s3cret|sig=abc|token=xyz/);
  });

  it('count as the same however the host and port are written', () => {
    expect(
      webhookRegistrationProblem({ url: 'https://HOOKS.example:443/a', type: 'Notification' }, [
        { url: 'https://hooks.example/a', type: 'Notification' },
      ]),
    ).toBe('this URL is registered already');
  });
});

describe('addresses swept after a removal', () => {
  it('are carried across runs once each, and dropped when a webhook is kept there again', () => {
    const settings = { driftPolicy: 'repair' as const, reconcileEveryMs: 1_000 };
    const state = new RegistryState('acme', settings, undefined);
    state.sweepLater(managed());
    state.sweepLater(managed({ url: 'https://HOOKS.example:443/a' }));
    expect(state.carried().sweeping).toEqual([
      { url: 'https://hooks.example/a', type: 'Notification', keptId: managed().id },
    ]);
    const next = new RegistryState('acme', settings, state.carried());
    expect(next.sweeping).toHaveLength(1);
    next.put(managed({ id: 'w-2' }));
    expect(next.sweeping).toEqual([]);
    expect(next.carried()).not.toHaveProperty('sweeping');
  });

  it('are given up, with the webhooks last seen there, after SWEEP_TRIES comparisons counted across runs', () => {
    const settings = { driftPolicy: 'repair' as const, reconcileEveryMs: 1_000 };
    let state = new RegistryState('acme', settings, undefined);
    state.sweepLater(managed());
    state.external = [{ id: 'w-9', url: 'https://hooks.example/a', type: 'Notification', enabled: true }];
    for (let n = 0; n < SWEEP_TRIES; n += 1) {
      expect(state.sweepTried()).toEqual([]);
      state = new RegistryState('acme', settings, state.carried());
    }
    const [given] = state.sweepTried();
    expect(given?.seen.map((webhook) => webhook.id)).toEqual(['w-9']);
    expect(state.sweeping).toEqual([]);
    // Abandoned while something it does not keep is live there, across runs.
    state = new RegistryState('acme', settings, state.carried());
    state.abandonedStillLive(state.external);
    expect(state.abandoned).toHaveLength(1);
    state.abandonedStillLive([{ ...state.external[0]!, enabled: false }]);
    expect(state.abandoned).toEqual([]);
  });
});

describe('drift kept in list', () => {
  it('keeps one entry per repeated finding, so alternating failures do not push history out', () => {
    const state = new RegistryState('acme', { driftPolicy: 'repair', reconcileEveryMs: 1_000 }, undefined);
    state.noteDrift([{ webhookId: 'old', kind: 'disabled', seenAt: 't0', outcome: 'enabled' }]);
    for (let round = 1; round <= 15; round += 1)
      state.noteDrift([
        { webhookId: 'a', kind: 'deleted', seenAt: `t${round}`, outcome: `repair failed: try ${round}` },
        { webhookId: 'b', kind: 'moved', seenAt: `t${round}`, outcome: 'repair failed: full' },
      ]);
    expect(state.drift.map((drift) => `${drift.webhookId}@${drift.seenAt}`)).toEqual([
      'old@t0',
      'a@t15',
      'b@t15',
    ]);
  });
});

describe('references of new verifications', () => {
  it('may not take the ID of another workflow, while lookups accept any reference', () => {
    expect(newReferenceSchema.safeParse('connection-17').success).toBe(false);
    expect(newReferenceSchema.safeParse('order-17').success).toBe(true);
    expect(referenceSchema.safeParse('connection-17').success).toBe(true);
  });
});

describe('tenant names', () => {
  it('refuse two tenants whose connection workflow IDs could meet', () => {
    expect(ambiguousTenants(['acme', 'acme-x'])).toEqual(['acme', 'acme-x']);
    expect(ambiguousTenants(['acme', 'acmex', 'tenant-1'])).toBeUndefined();
    expect(() => loadConfig({ IDV_AGENT_KEYS: 'acme=key-one-123,acme-x=key-two-123' })).toThrow(ConfigError);
    expect(() => loadConfig({ IDV_AGENT_KEYS: 'acme=key-one-123,acme-x=key-two-123' })).toThrow(
      /IDV_AGENT_KEYS has tenants acme and acme-x/,
    );
    expect(loadConfig({ IDV_AGENT_KEYS: 'acme=k1, beta=k2' }).agent?.keys).toEqual({
      acme: 'k1',
      beta: 'k2',
    });
  });
});
