import { createHash, randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  canonicalSessionId,
  type CreateAttempt,
  type CreateAttemptEnding,
  secretMissing,
  type SessionClaim,
  type SessionVault,
} from '../session-vault';
import { readJsonFile, writeFileAtomic } from './atomic-file';

const recordSchema = z.object({
  workflowId: z.string(),
  dataKeyId: z.string().optional(),
  resultsAccessKey: z.string().optional(),
  destroyedAt: z.string().optional(),
});
const attemptSchema = z.object({
  startedAtMs: z.number(),
  endedAtMs: z.number().optional(),
  settled: z.boolean(),
  sessionId: z.string().optional(),
});
const ATTEMPT_ID = /^\d{15}-[0-9a-f-]{36}$/;

/** A {@link SessionVault} in a local directory (files readable by the owner only). */
export class FileSessionVault implements SessionVault {
  constructor(private readonly directory: string) {}

  // One file per attempt: overlapping attempts (a retry beside a zombie) never overwrite each other.
  async recordCreateAttempt(workflowId: string, startedAtMs: number): Promise<string> {
    const attemptId = `${String(startedAtMs).padStart(15, '0')}-${randomUUID()}`;
    const attempt: CreateAttempt = { startedAtMs, settled: false };
    await writeFileAtomic(
      join(this.#attemptsFolder(workflowId), `${attemptId}.json`),
      JSON.stringify(attempt),
    );
    return attemptId;
  }

  async endCreateAttempt(workflowId: string, attemptId: string, ending: CreateAttemptEnding): Promise<void> {
    if (!ATTEMPT_ID.test(attemptId)) return;
    const file = join(this.#attemptsFolder(workflowId), `${attemptId}.json`);
    const parsed = attemptSchema.safeParse(await readJsonFile(file));
    if (!parsed.success) return;
    await writeFileAtomic(file, JSON.stringify({ ...parsed.data, ...ending }));
  }

  async createAttempts(workflowId: string): Promise<CreateAttempt[]> {
    const folder = this.#attemptsFolder(workflowId);
    let names: string[];
    try {
      names = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const attempts: CreateAttempt[] = [];
    for (const name of names) {
      const parsed = attemptSchema.safeParse(await readJsonFile(join(folder, name)));
      if (parsed.success) attempts.push(parsed.data);
    }
    return attempts;
  }

  async forgetCreateAttempts(workflowId: string): Promise<void> {
    await rm(this.#attemptsFolder(workflowId), { recursive: true, force: true });
  }

  #attemptsFolder(workflowId: string): string {
    return join(this.directory, 'attempts', createHash('sha256').update(workflowId).digest('hex'));
  }

  async claim(sessionId: string, claim: SessionClaim): Promise<void> {
    await writeFileAtomic(this.#file(sessionId), JSON.stringify(claim));
  }

  async claimant(sessionId: string): Promise<string | undefined> {
    const parsed = recordSchema.safeParse(await readJsonFile(this.#file(sessionId)));
    return parsed.success ? parsed.data.workflowId : undefined;
  }

  async dataKeyOf(sessionId: string): Promise<string | undefined> {
    const parsed = recordSchema.safeParse(await readJsonFile(this.#file(sessionId)));
    return parsed.success ? parsed.data.dataKeyId : undefined;
  }

  async accessKey(sessionId: string): Promise<string> {
    const parsed = recordSchema.safeParse(await readJsonFile(this.#file(sessionId)));
    const key = parsed.success ? parsed.data.resultsAccessKey : undefined;
    if (!key) throw secretMissing(sessionId);
    return key;
  }

  async destroy(sessionId: string): Promise<void> {
    const parsed = recordSchema.safeParse(await readJsonFile(this.#file(sessionId)));
    const workflowId = parsed.success ? parsed.data.workflowId : 'unknown';
    const dataKeyId = parsed.success ? parsed.data.dataKeyId : undefined;
    await writeFileAtomic(
      this.#file(sessionId),
      JSON.stringify({ workflowId, dataKeyId, destroyedAt: new Date().toISOString() }),
    );
  }

  #file(sessionId: string): string {
    return join(this.directory, 'sessions', `${canonicalSessionId(sessionId)}.json`);
  }
}
