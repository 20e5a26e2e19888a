import { createHash, randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  canonicalProfileId,
  canonicalSessionId,
  type ClaimOutcome,
  type CreateAttempt,
  type Creation,
  type CreateAttemptEnding,
  claimantNamed,
  PURGED,
  secretMissing,
  type SessionClaim,
  type SessionVault,
  SWEPT,
} from '../session-vault';
import { createFileExclusive, readJsonFile, removeFileDurably, writeFileAtomic } from './atomic-file';

const stepSchema = z.object({
  method: z.string(),
  content: z.string(),
  refresh: z
    .object({ refreshAfter: z.string(), expiresAt: z.string(), timeToLiveSeconds: z.number() })
    .nullable()
    .optional(),
});
const claimSchema = z.object({
  workflowId: z.string(),
  profileId: z.string().optional(),
  dataKeyId: z.string().optional(),
  resultsAccessKey: z.string().optional(),
  collectionMethod: z.string().optional(),
  nextStep: stepSchema.optional(),
  destroyedAt: z.string().optional(),
});
type StoredClaim = z.infer<typeof claimSchema>;
const attemptSchema = z.object({
  workflowId: z.string(),
  profileId: z.string(),
  startedAtMs: z.number(),
  endedAtMs: z.number().optional(),
  settled: z.boolean(),
  sessionId: z.string().optional(),
});
const slotSchema = z.object({ sessionId: z.string().optional(), closed: z.boolean().optional() });
/**
 * An attempt's id (its file name): when it started, its workflow's key (so one verification's
 * attempts are found by name, without reading the profile's every attempt), a uuid. Ids written
 * before the key was part of them have none.
 */
const ATTEMPT_ID = /^\d{15}-(?:[0-9a-f]{16}-)?[0-9a-f-]{36}$/;
const workflowKey = (workflowId: string) =>
  createHash('sha256').update(workflowId).digest('hex').slice(0, 16);
/** The workflow key an attempt id carries, if it carries one. */
const workflowKeyOf = (attemptId: string) => /^\d{15}-([0-9a-f]{16})-[0-9a-f-]{36}$/.exec(attemptId)?.[1];

/**
 * A {@link SessionVault} in a local directory (files readable by the owner only, each write
 * synced with its folder). The verification's kept session is a file created exclusively, so
 * processes racing for it agree: `sessions/`, `attempts/<profile>/`, `slots/`, `orphans/<profile>/`.
 */
export class FileSessionVault implements SessionVault {
  constructor(private readonly directory: string) {}

  async recordCreateAttempt(attempt: {
    workflowId: string;
    profileId: string;
    startedAtMs: number;
  }): Promise<string> {
    const profileId = canonicalProfileId(attempt.profileId);
    const attemptId = `${String(attempt.startedAtMs).padStart(15, '0')}-${workflowKey(attempt.workflowId)}-${randomUUID()}`;
    const record: Omit<CreateAttempt, 'id'> = { ...attempt, profileId, settled: false };
    await writeFileAtomic(this.#attemptFile(profileId, attemptId), JSON.stringify(record));
    return attemptId;
  }

  async endCreateAttempt(profileId: string, attemptId: string, ending: CreateAttemptEnding): Promise<void> {
    if (!ATTEMPT_ID.test(attemptId)) return;
    const file = this.#attemptFile(canonicalProfileId(profileId), attemptId);
    const parsed = attemptSchema.safeParse(await readJsonFile(file));
    if (!parsed.success) return;
    await writeFileAtomic(file, JSON.stringify({ ...parsed.data, ...ending }));
  }

  async createAttempts(profileId: string, workflowId?: string): Promise<CreateAttempt[]> {
    const folder = join(this.directory, 'attempts', canonicalProfileId(profileId));
    const attempts: CreateAttempt[] = [];
    const key = workflowId === undefined ? undefined : workflowKey(workflowId);
    for (const name of await namesIn(folder)) {
      if (!name.endsWith('.json')) continue;
      const named = workflowKeyOf(name.slice(0, -'.json'.length));
      if (key !== undefined && named !== undefined && named !== key) continue;
      const parsed = attemptSchema.safeParse(await readJsonFile(join(folder, name)));
      if (!parsed.success) continue;
      if (workflowId === undefined || parsed.data.workflowId === workflowId)
        attempts.push({ id: name.slice(0, -'.json'.length), ...parsed.data });
    }
    return attempts;
  }

  async forgetCreateAttempts(profileId: string, attemptIds: readonly string[]): Promise<void> {
    const profile = canonicalProfileId(profileId);
    for (const attemptId of attemptIds)
      if (ATTEMPT_ID.test(attemptId)) await removeFileDurably(this.#attemptFile(profile, attemptId));
  }

  async claim(sessionId: string, claim: SessionClaim): Promise<ClaimOutcome> {
    const session = canonicalSessionId(sessionId);
    const profileId = canonicalProfileId(claim.profileId);
    // Taken by the sweep first: it stays the sweep's; destroyed, it stays destroyed. (Taking is
    // exclusive, so a session file written by a claim races a take only within that claim's own
    // attempt, which the sweep leaves alone while it is under way.)
    const existing = await this.#claimOf(session);
    if (existing?.workflowId === SWEPT || existing?.destroyedAt !== undefined) return { swept: true };
    // The key first: an orphan marked below is swept with it.
    await writeFileAtomic(this.#sessionFile(session), JSON.stringify({ ...claim, profileId }));
    const slotFile = this.#slotFile(claim.workflowId);
    if (await createFileExclusive(slotFile, JSON.stringify({ sessionId: session })))
      return {
        kept: { sessionId: session, collectionMethod: claim.collectionMethod, nextStep: claim.nextStep },
      };
    const slot = slotSchema.parse(await readJsonFile(slotFile));
    if (slot.sessionId === session && !slot.closed)
      return {
        kept: { sessionId: session, collectionMethod: claim.collectionMethod, nextStep: claim.nextStep },
      };
    if (slot.sessionId !== session) await this.#markOrphan(session, profileId);
    const kept = slot.sessionId === undefined ? undefined : await this.#claimOf(slot.sessionId);
    if (slot.closed || !kept?.collectionMethod || !kept.nextStep || slot.sessionId === undefined)
      return { closed: true };
    return {
      kept: { sessionId: slot.sessionId, collectionMethod: kept.collectionMethod, nextStep: kept.nextStep },
    };
  }

  async closeCreation(workflowId: string, keptSessionId?: string): Promise<string[]> {
    const slotFile = this.#slotFile(workflowId);
    if (await createFileExclusive(slotFile, JSON.stringify({ closed: true }))) return [];
    const slot = slotSchema.parse(await readJsonFile(slotFile));
    const kept = keptSessionId === undefined ? undefined : canonicalSessionId(keptSessionId);
    const marked: string[] = [];
    if (slot.sessionId !== undefined && slot.sessionId !== kept) {
      const claim = await this.#claimOf(slot.sessionId);
      if (claim?.profileId) {
        await this.#markOrphan(slot.sessionId, claim.profileId);
        marked.push(slot.sessionId);
      }
    }
    if (!slot.closed) await writeFileAtomic(slotFile, JSON.stringify({ ...slot, closed: true }));
    return marked;
  }

  async creation(workflowId: string): Promise<Creation | undefined> {
    const slot = slotSchema.safeParse(await readJsonFile(this.#slotFile(workflowId)));
    if (!slot.success) return undefined;
    const { sessionId, closed = false } = slot.data;
    return { closed, ...(sessionId === undefined ? {} : { keptSessionId: sessionId }) };
  }

  async forgetCreation(workflowId: string): Promise<void> {
    // Its tombstones are found by reading every session's file (a purge is rare; no index is
    // kept for it). Only tombstones, rewritten field by field: a claim not destroyed yet (an
    // orphan the sweep has still to end) is left to its destruction, so no write here can bring
    // back a key a destruction meanwhile removed.
    const folder = join(this.directory, 'sessions');
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (!name.endsWith('.json')) continue;
      const claim = claimSchema.safeParse(await readJsonFile(join(folder, name)));
      if (!claim.success || claim.data.workflowId !== workflowId || claim.data.destroyedAt === undefined)
        continue;
      const { profileId, dataKeyId, destroyedAt } = claim.data;
      const tombstone = { workflowId: PURGED, profileId, dataKeyId, destroyedAt };
      await writeFileAtomic(join(folder, name), JSON.stringify(tombstone));
    }
    await removeFileDurably(this.#slotFile(workflowId));
  }

  async takeOrphan(sessionId: string, profileId: string): Promise<boolean> {
    const session = canonicalSessionId(sessionId);
    const profile = canonicalProfileId(profileId);
    const existing = await this.#claimOf(session);
    // A claim cut short before its verification decided it (a crash between the two writes)
    // is not a claim: nothing will ever keep that session.
    if (existing && (await this.#decided(session, existing))) return false;
    // The mark first: a process killed before the tombstone leaves an orphan the sweep ends and
    // redacts, where a tombstone without its mark would pass for swept and never be swept.
    await this.#markOrphan(session, profile);
    const tombstone = { workflowId: SWEPT, profileId: profile, destroyedAt: new Date().toISOString() };
    if (existing) await writeFileAtomic(this.#sessionFile(session), JSON.stringify(tombstone));
    else if (!(await createFileExclusive(this.#sessionFile(session), JSON.stringify(tombstone)))) {
      // Claimed meanwhile, or taken by another look (whose mark this is too).
      if ((await this.#claimOf(session))?.workflowId !== SWEPT)
        await removeFileDurably(this.#orphanFile(profile, session));
      return false;
    }
    return true;
  }

  async orphans(profileId: string): Promise<string[]> {
    return await namesIn(join(this.directory, 'orphans', canonicalProfileId(profileId)));
  }

  async orphanSwept(sessionId: string, profileId: string): Promise<void> {
    await removeFileDurably(this.#orphanFile(canonicalProfileId(profileId), canonicalSessionId(sessionId)));
  }

  async accountedFor(sessionIds: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const sessionId of sessionIds) {
      const session = canonicalSessionId(sessionId);
      const claim = await this.#claimOf(session);
      if (claim && (await this.#decided(session, claim))) found.add(session);
    }
    return found;
  }

  /** A claim its verification decided: kept in its slot, marked an orphan, taken or destroyed. */
  async #decided(sessionId: string, claim: StoredClaim): Promise<boolean> {
    if (claim.workflowId === SWEPT || claim.destroyedAt !== undefined) return true;
    const slot = slotSchema.safeParse(await readJsonFile(this.#slotFile(claim.workflowId)));
    if (slot.success && slot.data.sessionId === sessionId) return true;
    return (
      claim.profileId !== undefined &&
      (await readJsonFile(this.#orphanFile(claim.profileId, sessionId))) !== undefined
    );
  }

  async claimant(sessionId: string): Promise<string | undefined> {
    const workflowId = (await this.#claimOf(sessionId))?.workflowId;
    return claimantNamed(workflowId);
  }

  async dataKeyOf(sessionId: string): Promise<string | undefined> {
    const session = canonicalSessionId(sessionId);
    const claim = await this.#claimOf(session);
    if (claim?.dataKeyId === undefined) return undefined;
    const slot = slotSchema.safeParse(await readJsonFile(this.#slotFile(claim.workflowId)));
    const keptElse = slot.success && slot.data.sessionId !== undefined && slot.data.sessionId !== session;
    return keptElse ? undefined : claim.dataKeyId;
  }

  async accessKey(sessionId: string): Promise<string> {
    const key = (await this.#claimOf(sessionId))?.resultsAccessKey;
    if (!key) throw secretMissing(sessionId);
    return key;
  }

  async destroy(sessionId: string): Promise<void> {
    const claim = await this.#claimOf(sessionId);
    // Temporary files a crashed write left beside it hold the key too.
    const prefix = `${canonicalSessionId(sessionId)}.json.`;
    for (const name of await readdir(join(this.directory, 'sessions')).catch(() => [] as string[]))
      if (name.startsWith(prefix) && name.endsWith('.tmp'))
        await rm(join(this.directory, 'sessions', name), { force: true });
    // The key and the step go; who claimed it, its profile and data key stay.
    const tombstone = {
      workflowId: claim?.workflowId ?? SWEPT,
      ...(claim?.profileId ? { profileId: claim.profileId } : {}),
      ...(claim?.dataKeyId ? { dataKeyId: claim.dataKeyId } : {}),
      destroyedAt: claim?.destroyedAt ?? new Date().toISOString(),
    };
    await writeFileAtomic(this.#sessionFile(canonicalSessionId(sessionId)), JSON.stringify(tombstone));
  }

  async #claimOf(sessionId: string): Promise<StoredClaim | undefined> {
    const parsed = claimSchema.safeParse(
      await readJsonFile(this.#sessionFile(canonicalSessionId(sessionId))),
    );
    return parsed.success ? parsed.data : undefined;
  }

  async #markOrphan(sessionId: string, profileId: string): Promise<void> {
    await writeFileAtomic(this.#orphanFile(profileId, sessionId), '{}');
  }

  #attemptFile(profileId: string, attemptId: string): string {
    return join(this.directory, 'attempts', profileId, `${attemptId}.json`);
  }

  #slotFile(workflowId: string): string {
    return join(this.directory, 'slots', `${createHash('sha256').update(workflowId).digest('hex')}.json`);
  }

  #orphanFile(profileId: string, sessionId: string): string {
    return join(this.directory, 'orphans', canonicalProfileId(profileId), canonicalSessionId(sessionId));
  }

  #sessionFile(sessionId: string): string {
    return join(this.directory, 'sessions', `${sessionId}.json`);
  }
}

/** The names in a folder; none when it does not exist. */
async function namesIn(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder)).filter((name) => !name.endsWith('.tmp')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
