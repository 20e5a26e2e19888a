import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from './atomic-file';

/** Where a stored blob is, and what it is. */
export interface StoredBlob {
  uri: string;
  sha256: string;
  sizeBytes: number;
}

/** Stores attachments outside Temporal; a session's blobs are deleted together on redaction. */
export interface BlobStore {
  put(sessionId: string, name: string, bytes: Buffer): Promise<StoredBlob>;
  /** Deletes every blob of a session; resolves to how many there were. Idempotent. */
  deleteSession(sessionId: string): Promise<number>;
}

const SAFE_NAME = /^[A-Za-z0-9._-]+$/;

/** A {@link BlobStore} in a local directory, one folder per session. */
export class LocalBlobStore implements BlobStore {
  constructor(private readonly directory: string) {}

  async put(sessionId: string, name: string, bytes: Buffer): Promise<StoredBlob> {
    const file = join(this.#folder(sessionId), check(name));
    await writeFileAtomic(file, bytes);
    return {
      uri: pathToFileURL(file).href,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      sizeBytes: bytes.length,
    };
  }

  async deleteSession(sessionId: string): Promise<number> {
    const folder = this.#folder(sessionId);
    let count = 0;
    try {
      count = (await readdir(folder)).filter((name) => !name.endsWith('.tmp')).length;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await rm(folder, { recursive: true, force: true });
    return count;
  }

  #folder(sessionId: string): string {
    return join(this.directory, check(sessionId));
  }
}

function check(name: string): string {
  if (!SAFE_NAME.test(name) || name.startsWith('.')) throw new Error(`unsafe blob name: ${name}`);
  return name;
}
