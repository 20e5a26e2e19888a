import { type Level } from 'pino';
import { DEFAULT_API_RATE } from '../api/http/call-budget';
import { logLevels } from './log/logger';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { identityBaseUrls, type IdentityRegion } from '../api/identity/base-urls';
import { type EncryptionKey, EncryptionKeysError, parseEncryptionKeys } from '../codec/encryption-keys';
import { ambiguousTenants, tenantProblem } from '../agent-platform/domain/agent-tenants';
import { durationProblem, parseDuration } from '../common/durations';
import { DEFAULT_ORPHAN_HORIZON_MS } from '../verification/activities/orphan-settings';
import { type PollPlacementMode, pollPlacementModes } from '../verification/activities/poll-learning';
import { DEFAULT_KEY_ROTATION_MS } from '../keyring/shared';
import { type WorkerDeployment, workerDeployment } from './deployment-settings';

/** Thrown when configuration is invalid; the message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Configuration of the worker and the command line, from the environment. */
export interface IdvConfig {
  taskQueue: string;
  dataDir: string;
  /** Set when `TEMPORAL_ADDRESS` (or a profile) points at a real cluster; otherwise the embedded stack. */
  temporalFromEnvironment: boolean;
  /** Absent when no API key is set: the embedded emulator is used. */
  identity: { baseUrl: string; apiKey: string } | undefined;
  /** `IDV_STORE_URL`: the shared PostgreSQL store; absent: the local directory store in the data dir. */
  storeUrl: string | undefined;
  /** Payload encryption keys, newest first; absent when `IDV_ENCRYPTION_KEYS` is not set. */
  encryptionKeys: EncryptionKey[] | undefined;
  /** `IDV_AGENT_KEYS` (and `IDV_AGENT_BASE_URL`): the earlier platform's keys by tenant; absent: the dev stack's, if any. */
  agent: { keys: Record<string, string>; baseUrl: string | undefined } | undefined;
  /** `IDV_RECEIVER_URL`: the receiver's address as the platform reaches it (its tenants' webhook URLs start with it). */
  receiverUrl: string | undefined;
  /** `IDV_RECEIVER_SECRET`: the tenants' path tokens derive from it. */
  receiverSecret: string | undefined;
  /** `IDV_ONBOARDING_FILE`: the receiver's onboarding settings (JSON); absent: no tenant is onboarded. */
  onboardingFile: string | undefined;
  /** `IDV_AUTH_URL`, `IDV_SCHEMA_BASE_URL`: the current platform's OIDC provider and template base (migrations). */
  ecosystem: { authUrl: string | undefined; schemaBaseUrl: string | undefined };
  /** The JSON logs' level (`IDV_LOG_LEVEL`); the Temporal runtime's own lines stay at WARN. */
  logLevel: Level;
  /** `IDV_API_RATE`: calls per second the workers of the task queue make to the identity service at most, together (each its part). */
  apiCallsPerSecond: number;
  /** `IDV_WORKFLOW_CACHE`: workflows the worker keeps cached between their tasks. */
  workflowCacheSize: number;
  /** `IDV_POLL_PLACEMENT`: polls placed by each provider's learned completion times, or by the fixed rule only. */
  pollPlacement: PollPlacementMode;
  /** `IDV_ORPHAN_HORIZON`: how long after an unanswered create its session may still land (and is swept). */
  orphanHorizonMs: number;
  /** `IDV_DEPLOYMENT` and `IDV_BUILD_ID`: the worker's deployment and build (Worker Versioning). */
  deployment: WorkerDeployment;
  /** `IDV_RECORD_RETENTION`: how long `idv records purge` keeps the records of erased verifications; absent: as long as the business keeps them. */
  recordRetentionMs: number | undefined;
  /** `IDV_KEY_ROTATION`: how often the keyring rotates (a destroyed data key is gone from every copy of the store once a rotation started after its destruction has completed). */
  keyRotationMs: number;
}

/** The task queue of `idv worker` and `idv dev` unless `IDV_TASK_QUEUE` says otherwise. */
export const DEFAULT_TASK_QUEUE = 'identity-verification';

/**
 * Workflows a worker keeps cached unless `IDV_WORKFLOW_CACHE` says otherwise. An open
 * verification waiting on its user needs none (its polls wait at the server); one that wakes
 * uncached replays its short history. Each cached workflow holds about 0.1 MB now that workflow
 * code loads no zod (bench:footprint: 500 and 1,000 cached of 1,000 open, 498 and 548 MiB RSS);
 * Temporal's own default grows with the heap (about 2,300 here).
 */
export const DEFAULT_WORKFLOW_CACHE = 500;

const url = z.string().refine((value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

/** How long records of erased verifications may be kept before a purge: a day to a century. */
export const recordRetentionBounds = {
  minMs: 86_400_000,
  maxMs: 36_500 * 86_400_000,
  range: '1 day to 100 years',
  example: '400d',
} as const;

/** A duration variable (`90s`, `24h`, ISO 8601) within bounds, read as milliseconds. */
function durationVariable(bounds: { minMs: number; maxMs: number; range: string; example: string }) {
  return z.string().transform((value, context) => {
    const ms = parseDuration(value);
    if (ms === undefined || ms < bounds.minMs || ms > bounds.maxMs) {
      context.addIssue({
        code: 'custom',
        message: `must be a duration from ${bounds.range}${ms === undefined ? ` (${durationProblem(value) ?? `such as ${bounds.example}`})` : ''}`,
      });
      return z.NEVER;
    }
    return ms;
  });
}

const variables = {
  IDV_TASK_QUEUE: z.string().min(1, 'must not be empty').regex(/^\S+$/, 'must not contain spaces'),
  IDV_DATA_DIR: z.string().min(1, 'must not be empty'),
  IDV_REGION: z.enum(Object.keys(identityBaseUrls) as [IdentityRegion, ...IdentityRegion[]]),
  IDV_API_BASE_URL: url,
  IDV_API_KEY: z.string().min(8, 'looks too short to be an API key'),
  IDV_AGENT_BASE_URL: url,
  IDV_RECEIVER_URL: url,
  IDV_RECEIVER_SECRET: z.string().min(32, 'must be at least 32 characters (openssl rand -hex 32)'),
  IDV_ONBOARDING_FILE: z.string().trim().min(1, 'must not be empty'),
  IDV_AUTH_URL: url,
  IDV_SCHEMA_BASE_URL: url,
  IDV_AGENT_KEYS: z.string().transform((value, context) => {
    const keys: Record<string, string> = {};
    for (const entry of value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const at = entry.indexOf('=');
      const tenant = entry.slice(0, at);
      if (at <= 0 || at === entry.length - 1 || tenantProblem(tenant) !== undefined) {
        context.addIssue({
          code: 'custom',
          message: 'must be tenant=key[,tenant=key…] with tenants of letters, digits, . _ -',
        });
        return z.NEVER;
      }
      keys[tenant] = entry.slice(at + 1);
    }
    const ambiguous = ambiguousTenants(Object.keys(keys));
    if (ambiguous) {
      context.addIssue({
        code: 'custom',
        message: `has tenants ${ambiguous[0]} and ${ambiguous[1]}: one must not be the other followed by '-' (their connection workflow IDs could meet)`,
      });
      return z.NEVER;
    }
    return keys;
  }),
  IDV_STORE_URL: z.string().refine((value) => {
    try {
      return ['postgres:', 'postgresql:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be a postgres://user:password@host:port/database URL'),
  IDV_API_RATE: z.coerce
    .number({ message: 'must be a whole number of calls per second' })
    .int('must be a whole number of calls per second')
    .min(1, 'must be at least 1 call per second')
    .max(100_000, 'must be at most 100000 calls per second'),
  IDV_WORKFLOW_CACHE: z.coerce
    .number({ message: 'must be a whole number of workflows' })
    .int('must be a whole number of workflows')
    .min(2, 'must be at least 2')
    .max(1_000_000, 'must be at most 1000000'),
  IDV_ORPHAN_HORIZON: durationVariable({
    minMs: 1_000,
    maxMs: 30 * 86_400_000,
    range: '1s to 30 days',
    example: '24h',
  }),
  IDV_RECORD_RETENTION: durationVariable(recordRetentionBounds),
  IDV_DEPLOYMENT: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be 1 to 100 letters, digits, . _ or -'),
  IDV_BUILD_ID: z.string().regex(/^[A-Za-z0-9._+-]{1,100}$/, 'must be 1 to 100 letters, digits, . _ + or -'),
  IDV_KEY_ROTATION: durationVariable({
    minMs: 1_000,
    maxMs: 30 * 86_400_000,
    range: '1s to 30 days',
    example: '1h',
  }),
  IDV_POLL_PLACEMENT: z.enum(pollPlacementModes, {
    message: `must be one of ${pollPlacementModes.join(', ')}`,
  }),
  IDV_LOG_LEVEL: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(logLevels as [Level, ...Level[]], { message: `must be one of ${logLevels.join(', ')}` })),
} as const;

/** Never quoted in messages (a store URL may hold a password). */
const SECRET_VARIABLES = new Set<string>([
  'IDV_API_KEY',
  'IDV_STORE_URL',
  'IDV_AGENT_KEYS',
  'IDV_RECEIVER_SECRET',
]);

function read<K extends keyof typeof variables>(
  env: NodeJS.ProcessEnv,
  name: K,
): z.infer<(typeof variables)[K]> | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const parsed = variables[name].safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      `${name} ${parsed.error.issues[0]?.message ?? 'is invalid'}${SECRET_VARIABLES.has(name) ? '' : ` (got '${raw}')`}`,
    );
  }
  return parsed.data as z.infer<(typeof variables)[K]>;
}

/** Reads and validates the configuration; every default is resolved here. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): IdvConfig {
  const apiKey = read(env, 'IDV_API_KEY');
  const baseUrl = read(env, 'IDV_API_BASE_URL');
  const region = read(env, 'IDV_REGION') ?? 'us';
  if (baseUrl && !apiKey)
    throw new ConfigError('IDV_API_BASE_URL is set but IDV_API_KEY is not: set both to use a real service');
  const agentKeys = read(env, 'IDV_AGENT_KEYS');
  if (env.IDV_AGENT_BASE_URL && !agentKeys)
    throw new ConfigError(
      'IDV_AGENT_BASE_URL is set but IDV_AGENT_KEYS is not: set both to use the real platform',
    );
  return {
    taskQueue: read(env, 'IDV_TASK_QUEUE') ?? DEFAULT_TASK_QUEUE,
    dataDir: resolve(read(env, 'IDV_DATA_DIR') ?? defaultDataDir(process.cwd())),
    temporalFromEnvironment: Boolean(
      env.TEMPORAL_ADDRESS || env.TEMPORAL_PROFILE || env.TEMPORAL_CONFIG_FILE,
    ),
    identity: apiKey ? { apiKey, baseUrl: baseUrl ?? identityBaseUrls[region] } : undefined,
    storeUrl: read(env, 'IDV_STORE_URL'),
    encryptionKeys: encryptionKeys(env.IDV_ENCRYPTION_KEYS),
    agent: agentKeys ? { keys: agentKeys, baseUrl: read(env, 'IDV_AGENT_BASE_URL') } : undefined,
    receiverUrl: read(env, 'IDV_RECEIVER_URL'),
    receiverSecret: read(env, 'IDV_RECEIVER_SECRET'),
    onboardingFile: read(env, 'IDV_ONBOARDING_FILE'),
    ecosystem: { authUrl: read(env, 'IDV_AUTH_URL'), schemaBaseUrl: read(env, 'IDV_SCHEMA_BASE_URL') },
    logLevel: read(env, 'IDV_LOG_LEVEL') ?? 'info',
    apiCallsPerSecond: read(env, 'IDV_API_RATE') ?? DEFAULT_API_RATE,
    workflowCacheSize: read(env, 'IDV_WORKFLOW_CACHE') ?? DEFAULT_WORKFLOW_CACHE,
    pollPlacement: read(env, 'IDV_POLL_PLACEMENT') ?? 'learned',
    orphanHorizonMs: read(env, 'IDV_ORPHAN_HORIZON') ?? DEFAULT_ORPHAN_HORIZON_MS,
    keyRotationMs: read(env, 'IDV_KEY_ROTATION') ?? DEFAULT_KEY_ROTATION_MS,
    recordRetentionMs: read(env, 'IDV_RECORD_RETENTION'),
    deployment: workerDeployment(read(env, 'IDV_TASK_QUEUE') ?? DEFAULT_TASK_QUEUE, {
      ...(read(env, 'IDV_DEPLOYMENT') ? { name: read(env, 'IDV_DEPLOYMENT') } : {}),
      ...(read(env, 'IDV_BUILD_ID') ? { buildId: read(env, 'IDV_BUILD_ID') } : {}),
    }),
  };
}

function encryptionKeys(raw: string | undefined): EncryptionKey[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return parseEncryptionKeys(raw);
  } catch (error) {
    if (error instanceof EncryptionKeysError) throw new ConfigError(error.message);
    throw error;
  }
}

/**
 * `.data` of the nearest folder, from `cwd` up, that holds a stack file (so `idv status` run in a
 * subfolder finds the stack `npm start` runs at the project's root); `./.data` when none does.
 */
export function defaultDataDir(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.data', 'stack.json'))) return join(dir, '.data');
    if (dirname(dir) === dir) return join(resolve(cwd), '.data');
  }
}
