import { EmulatorHttpServer } from './server';
import { type ProfileRecord } from './state/model';
import { EmulatorStore } from './state/store';
import { SeededRandom } from './rng';
import { readSnapshot, restoreSnapshot, snapshotOf, writeSnapshot } from './state/snapshot';

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** `0` picks a free port. @default 0 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Seed of every random choice (ids, keys, user latency, faults). @default 1 */
  seed?: number;
  /** Identity API keys, one environment each; one is generated when empty. */
  apiKeys?: string[];
  /** Earlier-platform keys by tenant; one tenant is generated when empty. */
  agentKeys?: Record<string, string>;
  /** Verification profile settings for each environment. */
  redactionPeriodSeconds?: number;
  /** @default 7200 (2 hours) */
  sessionExpirationSeconds?: number;
  /**
   * Keep the state in this file: restored at start (profiles, sessions, webhooks…; API keys are
   * made anew, the profile options only apply to a first start), saved within a second of any request and
   * at close. Ids stay unique across restarts as long as each start has its own seed. @default none
   */
  stateFile?: string;
}

/** What the emulator prints on start (the start-up contract). */
export interface EmulatorInfo {
  baseUrl: string;
  agentBaseUrl: string;
  apiKeys: string[];
  agentKeys: Record<string, string>;
  verificationProfiles: Array<{
    id: string;
    redactionPeriod: string;
    sessionExpiration: string;
    apiKey: string;
  }>;
  controlUrl: string;
}

/** A running emulator. */
export interface Emulator extends EmulatorInfo {
  store: EmulatorStore;
  http: EmulatorHttpServer;
  close(): Promise<void>;
}

const DAY_SECONDS = 86_400;

/** An ISO 8601 duration of whole seconds, e.g. `PT2H`, `P30D`. */
export function isoDuration(seconds: number): string {
  if (seconds % DAY_SECONDS === 0) return `P${seconds / DAY_SECONDS}D`;
  if (seconds % 3600 === 0) return `PT${seconds / 3600}H`;
  if (seconds % 60 === 0) return `PT${seconds / 60}M`;
  return `PT${seconds}S`;
}

/** Starts the emulator of the identity service and the earlier agent platform. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const seed = options.seed ?? 1;
  const keySource = new SeededRandom(seed ^ 0x6b6579);
  const saved = options.stateFile ? await readSnapshot(options.stateFile) : undefined;
  const apiKeys = options.apiKeys?.length ? options.apiKeys : [`idv_emulator_${keySource.token(32)}`];
  const agentKeys =
    options.agentKeys && Object.keys(options.agentKeys).length > 0
      ? options.agentKeys
      : { 'tenant-1': `agent_emulator_${keySource.token(32)}` };
  const store = new EmulatorStore({ seed, apiKeys, agentKeys });
  const redaction = options.redactionPeriodSeconds ?? 30 * DAY_SECONDS;
  const expiration = options.sessionExpirationSeconds ?? 7_200;
  if (saved) restoreSnapshot(store, saved);
  const profiles: Array<ProfileRecord & { apiKey: string }> = apiKeys.map((apiKey, index) => ({
    ...(saved?.profiles.find((profile) => profile.environmentId === `env-${index + 1}`) ??
      store.addProfile(`env-${index + 1}`, redaction * 1000, expiration * 1000)),
    apiKey,
  }));
  const http = new EmulatorHttpServer(store, seed);
  const baseUrl = await http.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  const persistence = options.stateFile ? persist(options.stateFile, store, http) : undefined;
  return {
    baseUrl,
    agentBaseUrl: `${baseUrl}/credentials/v1`,
    controlUrl: `${baseUrl}/_emulator`,
    apiKeys,
    agentKeys,
    verificationProfiles: profiles.map((p) => ({
      id: p.id,
      redactionPeriod: isoDuration(p.redactionPeriodMs / 1000),
      sessionExpiration: isoDuration(p.sessionExpirationMs / 1000),
      apiKey: p.apiKey,
    })),
    store,
    http,
    close: async () => {
      await http.close();
      await persistence?.stop();
    },
  };
}

/** Saves the state within a second of any request, and once more when stopped. */
function persist(file: string, store: EmulatorStore, http: EmulatorHttpServer): { stop(): Promise<void> } {
  let saved = -1;
  let saving: Promise<void> = Promise.resolve();
  const save = () => {
    const requests = http.requestCount;
    if (requests === saved) return saving;
    saved = requests;
    saving = saving.catch(() => undefined).then(() => writeSnapshot(file, snapshotOf(store)));
    return saving;
  };
  void save();
  const timer = setInterval(() => void save().catch(() => (saved = -1)), 1_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      saved = -1;
      await save();
    },
  };
}

/** The start-up line's content. */
export function emulatorInfo(emulator: Emulator): EmulatorInfo {
  const { baseUrl, agentBaseUrl, apiKeys, agentKeys, verificationProfiles, controlUrl } = emulator;
  return { baseUrl, agentBaseUrl, apiKeys, agentKeys, verificationProfiles, controlUrl };
}
