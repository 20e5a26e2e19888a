import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeFileAtomic } from './atomic-file';

/** Thrown when a session's results access key is gone (redacted) or was never stored here. */
export class SessionSecretMissingError extends Error {
  override readonly name = 'SessionSecretMissingError';
}

/**
 * Keeps what must not travel through Temporal payloads: each session's results access key, the
 * claim that ties a session to its workflow, and the start times of create attempts (to find
 * sessions orphaned by a lost answer). Every worker of a deployment must share it.
 */
export interface SessionVault {
  /** Records that a create attempt of `workflowId` starts now; resolves to all its attempts. */
  recordCreateAttempt(workflowId: string, startedAtMs: number): Promise<number[]>;
  /** Stores a created session's key and claims it for its workflow. */
  claim(sessionId: string, claim: { workflowId: string; resultsAccessKey: string }): Promise<void>;
  /** True when some workflow claimed the session (even after its key was destroyed). */
  isClaimed(sessionId: string): Promise<boolean>;
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
const attemptsSchema = z.object({ attempts: z.array(z.number()) });

/** A {@link SessionVault} in a local directory (files readable by the owner only). */
export class FileSessionVault implements SessionVault {
  constructor(private readonly directory: string) {}

  async recordCreateAttempt(workflowId: string, startedAtMs: number): Promise<number[]> {
    const file = join(
      this.directory,
      'attempts',
      `${createHash('sha256').update(workflowId).digest('hex')}.json`,
    );
    const parsed = attemptsSchema.safeParse(await readJsonFile(file));
    const attempts = [...(parsed.success ? parsed.data.attempts : []), startedAtMs];
    await writeFileAtomic(file, JSON.stringify({ attempts }));
    return attempts;
  }

  async claim(sessionId: string, claim: { workflowId: string; resultsAccessKey: string }): Promise<void> {
    await writeFileAtomic(this.#file(sessionId), JSON.stringify(claim));
  }

  async isClaimed(sessionId: string): Promise<boolean> {
    return recordSchema.safeParse(await readJsonFile(this.#file(sessionId))).success;
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
