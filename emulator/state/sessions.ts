import { type EmulatorClock } from '../clock';
import { type SeededRandom } from '../rng';
import { pngImage } from '../images';
import { type CatalogueProvider, TEST_PROVIDER_ID } from '../catalogue';
import {
  type ProfileRecord,
  type SessionRecord,
  type SessionScript,
  type StepRecord,
  type UserPlan,
} from './model';

/**
 * Brings a session up to the emulator's present: the simulated user's result once its time has
 * come, expiry per profile, and automatic redaction once the profile's redaction period passed.
 * Evaluated on every read, so no timers run and time can be advanced by tests.
 */
export function settle(
  session: SessionRecord,
  profile: ProfileRecord,
  clock: EmulatorClock,
  random: SeededRandom,
): void {
  const now = clock.now();
  if (!session.outcome.done) {
    const expiresAt = session.createdMs + profile.sessionExpirationMs;
    const userAt = session.plan.atMs;
    if (userAt !== undefined && userAt <= now && userAt <= expiresAt) {
      finish(session, session.plan.result, userAt, random);
    } else if (expiresAt <= now) {
      finish(session, 'Expired', expiresAt, random);
    }
  }
  if (session.outcome.done && !session.redacted && session.updatedMs + profile.redactionPeriodMs <= now) {
    redact(session, session.updatedMs + profile.redactionPeriodMs, 'retention');
  }
}

/**
 * Ends a pending session with a result; personal data is produced only on success, and not for
 * a session redacted while it ran unless its plan says the service gathers it all the same.
 */
export function finish(
  session: SessionRecord,
  result: UserPlan['result'],
  atMs: number,
  random: SeededRandom,
): void {
  if (session.outcome.done) return;
  session.updatedMs = atMs;
  if (result === 'success') {
    session.outcome = { done: true, success: true };
    if (!session.redacted || session.plan.gathersAfterRedaction) produceIdentity(session, random);
  } else {
    session.outcome = { done: true, success: false, errorCode: result };
  }
}

/** Removes identity data and attachments; the session itself remains. */
export function redact(session: SessionRecord, atMs: number, by: 'request' | 'retention'): void {
  session.identity = undefined;
  session.attachments.clear();
  session.input = {};
  session.redacted ??= { atMs, by };
}

/** The plan of a new session's simulated user, from the script and the provider input. */
export function planFor(
  provider: CatalogueProvider,
  input: Record<string, string>,
  script: SessionScript,
  now: number,
  random: SeededRandom,
): UserPlan {
  const latency =
    typeof script.latencyMs === 'number'
      ? script.latencyMs
      : random.int(script.latencyMs.min, script.latencyMs.max);
  // A native challenge completes when the device's response is submitted, never on its own.
  const manual = script.outcome === 'manual' || provider.collectionMethod === 'SubmitNativeChallengeResponse';
  const atMs = manual ? undefined : now + latency;
  const after = script.redactionSticks === false ? { gathersAfterRedaction: true as const } : {};
  if (script.outcome === 'by-input' || script.outcome === 'manual') {
    const fails = provider.id === TEST_PROVIDER_ID && input.identityCode !== '123456';
    return { atMs, result: fails ? 'Other' : 'success', ...after };
  }
  return { atMs, result: script.outcome, ...after };
}

/** The first step of a new session, for its launch method (or the hosted UI on fallback). */
export function firstStep(
  session: { id: string },
  method: string,
  baseUrl: string,
  ttlSeconds: number | undefined,
  now: number,
  random: SeededRandom,
): StepRecord {
  const token = random.token(24);
  const content: Record<string, string> = {
    LaunchBrowser: `${baseUrl}/_emulator/launch/${session.id}?clientToken=${token}`,
    DeeplinkToMobile: `https://verify.emulator.invalid/deeplink/${session.id}?token=${token}`,
    ShowContent: `Enter code ${token.slice(0, 6).toUpperCase()} in your identity app`,
    PerformNativeChallenge: Buffer.from(
      JSON.stringify({ protocol: 'openid4vp', nonce: token, sessionId: session.id }),
    ).toString('base64'),
    None: '',
  };
  const step: StepRecord = { method, content: content[method] ?? '' };
  if (ttlSeconds !== undefined) {
    step.refresh = {
      expiresAtMs: now + ttlSeconds * 1000,
      refreshAfterMs: now + ttlSeconds * 800,
      ttlSeconds,
    };
  }
  return step;
}

const givenNames = ['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger', 'Barbara', 'Donald', 'Frances'];
const familyNames = ['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Dijkstra', 'Liskov', 'Knuth', 'Allen'];

function produceIdentity(session: SessionRecord, random: SeededRandom): void {
  const givenName = session.input.givenName ?? givenNames[random.int(0, givenNames.length - 1)] ?? 'Ada';
  const familyName =
    session.input.familyName ?? familyNames[random.int(0, familyNames.length - 1)] ?? 'Lovelace';
  const year = random.int(1950, 2004);
  const attachments = [...session.attachments.values()];
  session.identity = {
    originatingProviderId: session.providerId,
    originatingSubProviderId: null,
    person: {
      givenName,
      familyName,
      middleName: null,
      fullName: `${givenName} ${familyName}`,
      suffix: null,
      nationality: 'US',
      sex: random.next() < 0.5 ? 'Female' : 'Male',
      phoneNumber: null,
      address: {
        line1: `${random.int(1, 999)} Main Street`,
        city: 'Springfield',
        subdivision: 'US-IL',
        postalCode: '62701',
        country: 'US',
      },
      dateOfBirth: `${year}-0${random.int(1, 9)}-1${random.int(0, 9)}`,
    },
    document: {
      type: 'DriversLicense',
      number: `D${random.int(1_000_000, 9_999_999)}`,
      issueDate: '2021-03-14',
      expirationDate: '2029-03-14',
      issuingCountry: 'US',
      issuingSubdivision: 'US-IL',
      issuingAuthority: 'Illinois Secretary of State',
    },
    match: {
      faceMatch: { probabilityValue: 0.97, booleanValue: true },
      liveness: { probabilityValue: 0.99, booleanValue: true },
    },
    attachments: attachments.map((a) => ({
      id: a.id,
      type: a.type,
      contentType: a.contentType,
      sizeBytes: a.bytes.length,
    })),
    providerOutput: null,
  };
}

/** Prepares the attachments a provider will return, so their ids are stable once known. */
export function prepareAttachments(
  session: SessionRecord,
  provider: CatalogueProvider,
  random: SeededRandom,
): void {
  for (const [index, spec] of provider.attachments.entries()) {
    const selfie = spec.type === 'selfie' ? session.input.selfieBase64 : undefined;
    const bytes = selfie ? Buffer.from(selfie, 'base64') : pngImage(random.int(0, 255) + index);
    const id = random.uuid();
    session.attachments.set(id, { id, type: spec.type, contentType: spec.contentType, bytes });
  }
}

/** The wire shape of a session (OpenAPI `Session`). */
export function sessionToWire(session: SessionRecord): Record<string, unknown> {
  const outcome = session.outcome;
  return {
    id: session.id,
    done: outcome.done,
    success: outcome.done && outcome.success,
    errorCode: outcome.done && !outcome.success ? outcome.errorCode : null,
    created: Math.floor(session.createdMs / 1000),
    updated: Math.floor(session.updatedMs / 1000),
  };
}

/** The wire shape of a step (OpenAPI `IntegrationStep`). */
export function stepToWire(step: StepRecord): Record<string, unknown> {
  return {
    method: step.method,
    content: step.content,
    refresh: step.refresh
      ? {
          expiresAt: new Date(step.refresh.expiresAtMs).toISOString(),
          refreshAfter: new Date(step.refresh.refreshAfterMs).toISOString(),
          timeToLiveSeconds: step.refresh.ttlSeconds,
        }
      : null,
  };
}
