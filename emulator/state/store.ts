import { EmulatorClock } from '../clock';
import { SeededRandom } from '../rng';
import {
  type ProfileRecord,
  type RedirectUriRecord,
  type SessionRecord,
  type SessionScript,
  type WebhookRecord,
} from './model';
import { seedAgentDefinitions, type AgentDefinitions } from './agent-definitions';
import { settle } from './sessions';

/** Who a key belongs to. */
export type Principal = { kind: 'identity'; environmentId: string } | { kind: 'agent'; tenant: string };

/** Options of {@link EmulatorStore}. */
export interface StoreOptions {
  seed: number;
  /** API keys of the identity service, each its own environment. */
  apiKeys: string[];
  /** Keys of the earlier platform, by tenant. */
  agentKeys: Record<string, string>;
}

/** Every piece of emulator state, in memory. */
export class EmulatorStore {
  readonly clock = new EmulatorClock();
  readonly random: SeededRandom;
  readonly principals = new Map<string, Principal>();
  readonly profiles = new Map<string, ProfileRecord>();
  readonly sessions = new Map<string, SessionRecord>();
  readonly redirectUris = new Map<string, RedirectUriRecord[]>();
  readonly webhooks = new Map<string, WebhookRecord>();
  readonly agentDefinitions = new Map<string, AgentDefinitions>();
  readonly counters = {
    byOperation: new Map<string, number>(),
    bySession: new Map<string, Map<string, number>>(),
    /** Requests by the wall-clock second they arrived in (epoch seconds), the last hour's. */
    bySecond: new Map<number, number>(),
    /** When a GetSession first answered that a session is done (epoch ms): how late a poll found it. */
    seenDone: new Map<string, number>(),
  };
  script: SessionScript = { outcome: 'by-input', latencyMs: 2_000, stepTtlSeconds: 300 };

  constructor(options: StoreOptions) {
    this.random = new SeededRandom(options.seed);
    for (const [index, key] of options.apiKeys.entries()) {
      const environmentId = `env-${index + 1}`;
      this.principals.set(key, { kind: 'identity', environmentId });
      this.redirectUris.set(environmentId, []);
    }
    for (const [tenant, key] of Object.entries(options.agentKeys)) {
      this.principals.set(key, { kind: 'agent', tenant });
      this.agentDefinitions.set(tenant, seedAgentDefinitions(tenant));
    }
  }

  /** Creates a verification profile of an environment. */
  addProfile(environmentId: string, redactionPeriodMs: number, sessionExpirationMs: number): ProfileRecord {
    const profile = { id: this.random.uuid(), environmentId, redactionPeriodMs, sessionExpirationMs };
    this.profiles.set(profile.id, profile);
    return profile;
  }

  /** A session brought up to the present, or undefined. */
  session(id: string): SessionRecord | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    const profile = this.profiles.get(session.profileId);
    if (profile) settle(session, profile, this.clock, this.random);
    return session;
  }

  /** Counts one request of an operation (and of the session it names). */
  count(operation: string, sessionId?: string): void {
    this.counters.byOperation.set(operation, (this.counters.byOperation.get(operation) ?? 0) + 1);
    const second = Math.floor(Date.now() / 1000);
    const bySecond = this.counters.bySecond;
    if (!bySecond.has(second) && bySecond.size >= 3600)
      bySecond.delete(bySecond.keys().next().value as number);
    bySecond.set(second, (bySecond.get(second) ?? 0) + 1);
    if (!sessionId) return;
    const perSession = this.counters.bySession.get(sessionId) ?? new Map<string, number>();
    perSession.set(operation, (perSession.get(operation) ?? 0) + 1);
    this.counters.bySession.set(sessionId, perSession);
  }

  /** A GetSession answered that the session is done; the first time is kept. */
  seenDone(sessionId: string): void {
    if (!this.counters.seenDone.has(sessionId)) this.counters.seenDone.set(sessionId, Date.now());
  }

  /** Counters as plain JSON. */
  countersJson(): {
    byOperation: Record<string, number>;
    bySession: Record<string, Record<string, number>>;
    bySecond: Record<string, number>;
    busiestSecond: number;
    seenDone: Record<string, number>;
  } {
    return {
      byOperation: Object.fromEntries(this.counters.byOperation),
      bySecond: Object.fromEntries(this.counters.bySecond),
      busiestSecond: Math.max(0, ...this.counters.bySecond.values()),
      seenDone: Object.fromEntries(this.counters.seenDone),
      bySession: Object.fromEntries(
        [...this.counters.bySession].map(([id, counts]) => [id, Object.fromEntries(counts)]),
      ),
    };
  }
}
