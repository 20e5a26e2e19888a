import { type SessionErrorCode } from '../../common/identity-enums';

/** A verification profile: how long sessions live and how long personal data is kept. */
export interface ProfileRecord {
  id: string;
  environmentId: string;
  redactionPeriodMs: number;
  sessionExpirationMs: number;
}

/** The step the user must take, with refresh times when its content expires. */
export interface StepRecord {
  method: string;
  content: string;
  refresh?: { expiresAtMs: number; refreshAfterMs: number; ttlSeconds: number };
}

/** What the simulated user will do, and when (undefined `atMs`: only on a control call). */
export interface UserPlan {
  atMs: number | undefined;
  result: 'success' | SessionErrorCode;
  /**
   * The user's data is gathered when they finish even if the session was redacted while it ran
   * (the service erased only what it held then). Absent: a redaction sticks.
   */
  gathersAfterRedaction?: true;
}

/** One attachment's bytes, held until redaction. */
export interface AttachmentRecord {
  id: string;
  type: string;
  contentType: string;
  bytes: Buffer;
}

/** A session as the emulator keeps it. */
export interface SessionRecord {
  id: string;
  environmentId: string;
  profileId: string;
  providerId: string;
  createdMs: number;
  updatedMs: number;
  resultsAccessKey: string;
  collectionMethod: string;
  fallback: boolean;
  step: StepRecord;
  outcome:
    | { done: false }
    | { done: true; success: true }
    | { done: true; success: false; errorCode: SessionErrorCode };
  plan: UserPlan;
  input: Record<string, string>;
  identity: Record<string, unknown> | undefined;
  attachments: Map<string, AttachmentRecord>;
  redacted?: { atMs: number; by: 'request' | 'retention' };
}

/** A webhook of the earlier platform. */
export interface WebhookRecord {
  id: string;
  tenant: string;
  url: string;
  type: string;
  parameters?: string;
  enabled: boolean;
}

/** A redirect URI of an environment. */
export interface RedirectUriRecord {
  id: string;
  uri: string;
  createdMs: number;
}

/** Defaults applied to sessions created from now on. */
export interface SessionScript {
  /** `by-input`: the test provider decides by identityCode; other providers succeed. */
  outcome: 'by-input' | 'success' | 'manual' | SessionErrorCode;
  /** User latency: fixed, or uniform in [min, max] from the seeded source. */
  latencyMs: number | { min: number; max: number };
  /** Lifetime of refreshable step content. */
  stepTtlSeconds: number;
  /**
   * Whether a redaction of a running session sticks (no data is gathered when its user finishes
   * afterwards); false: new sessions gather it all the same. The interface says neither.
   * @default true
   */
  redactionSticks?: boolean;
}
