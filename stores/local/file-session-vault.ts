import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeFileAtomic } from './atomic-file';

/** Thrown when a session's results access key is gone (redacted) or was never stored here. */
export class SessionSecretMissingError extends Error {
  override readonly name = 'SessionSecretMissingError';
}

/** A create attempt: when it started, and whether an answer settled it. */
export interface CreateAttempt {
  startedAtMs: number;
  /** When the attempt ended (absent when the worker died during it). */
  endedAtMs?: number;
  /**
   * True when the service answered definitively (created, or refused with a 4xx): no session
   * of this attempt can exist unclaimed. False for lost answers, timeouts, 5xx and crashes.
   */
  settled: boolean;
  /** The session it created, once answered. */
  sessionId?: string;
}

/** A time window (epoch ms) in which an unsettled create attempt may have created a session. */
export interface CreateWindow {
  fromMs: number;
  toMs: number;
}

/**
 * Keeps what must not travel through Temporal payloads: each session's results access key, the
 * claim that ties a session to its workflow, and the create attempts of each workflow (to find
 * sessions orphaned by a lost answer). Every worker of a deployment must share it.
 */
export interface SessionVault {
  /** Records that a create attempt of `workflowId` starts now; resolves to its index. */
  recordCreateAttempt(workflowId: string, startedAtMs: number): Promise<number>;
  /** Records how a create attempt ended. */
  endCreateAttempt(
    workflowId: string,
    index: number,
    ending: { endedAtMs: number; settled: boolean; sessionId?: string },
  ): Promise<void>;
  /** The create attempts of a workflow, oldest first. */
  createAttempts(workflowId: string): Promise<CreateAttempt[]>;
  /** Stores a created session's key and claims it for its workflow. */
  claim(sessionId: string, claim: { workflowId: string; resultsAccessKey: string }): Promise<void>;
  /** The workflow that claimed the session (kept after its key was destroyed), if any. */
  claimant(sessionId: string): Promise<string | undefined>;
  /** The session's results access key. */
  accessKey(sessionId: string): Promise<string>;
  /** Destroys the key; a tombstone keeps the claim. Idempotent. */
  destroy(sessionId: string): Promise<void>;
}

const recordSchema = z.object({
  workflowId: z.string(),
  resultsAccessKey: z.string().optional(),
  destroyedAt: z.string().optional(),
});
const attemptsSchema = z.object({
  attempts: z.array(
    z.object({
      startedAtMs: z.number(),
      endedAtMs: z.number().optional(),
      settled: z.boolean(),
      sessionId: z.string().optional(),
    }),
  ),
});

/** A {@link SessionVault} in a local directory (files readable by the owner only). */
export class FileSessionVault implements SessionVault {
  constructor(private readonly directory: string) {}

  async recordCreateAttempt(workflowId: string, startedAtMs: number): Promise<number> {
    const attempts = await this.createAttempts(workflowId);
    attempts.push({ startedAtMs, settled: false });
    await writeFileAtomic(this.#attemptsFile(workflowId), JSON.stringify({ attempts }));
    return attempts.length - 1;
  }

  async endCreateAttempt(
    workflowId: string,
    index: number,
    ending: { endedAtMs: number; settled: boolean; sessionId?: string },
  ): Promise<void> {
    const attempts = await this.createAttempts(workflowId);
    const attempt = attempts[index];
    if (!attempt) return;
    Object.assign(attempt, ending);
    await writeFileAtomic(this.#attemptsFile(workflowId), JSON.stringify({ attempts }));
  }

  async createAttempts(workflowId: string): Promise<CreateAttempt[]> {
    const parsed = attemptsSchema.safeParse(await readJsonFile(this.#attemptsFile(workflowId)));
    return parsed.success ? parsed.data.attempts : [];
  }

  #attemptsFile(workflowId: string): string {
    return join(this.directory, 'attempts', `${createHash('sha256').update(workflowId).digest('hex')}.json`);
  }

  async claim(sessionId: string, claim: { workflowId: string; resultsAccessKey: string }): Promise<void> {
    await writeFileAtomic(this.#file(sessionId), JSON.stringify(claim));
  }

  async claimant(sessionId: string): Promise<string | undefined> {
    const parsed = recordSchema.safeParse(await readJsonFile(this.#file(sessionId)));
    return parsed.success ? parsed.data.workflowId : undefined;
  }

  async accessKey(sessionId: string): Promise<string> {
    const parsed = recordSchema.safeParse(await readJsonFile(this.#file(sessionId)));
    const key = parsed.success ? parsed.data.resultsAccessKey : undefined;
    if (!key)
      throw new SessionSecretMissingError(
        `no results access key for session ${sessionId} (redacted, or created elsewhere)`,
      );
    return key;
  }

  async destroy(sessionId: string): Promise<void> {
    const parsed = recordSchema.safeParse(await readJsonFile(this.#file(sessionId)));
    const workflowId = parsed.success ? parsed.data.workflowId : 'unknown';
    await writeFileAtomic(
      this.#file(sessionId),
      JSON.stringify({ workflowId, destroyedAt: new Date().toISOString() }),
    );
  }

  #file(sessionId: string): string {
    if (!/^[0-9a-f-]{36}$/i.test(sessionId)) throw new Error(`not a session id: ${sessionId}`);
    return join(this.directory, 'sessions', `${sessionId.toLowerCase()}.json`);
  }
}
