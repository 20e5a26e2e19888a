import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BlobStore, checkBlobName, SessionDataDeletedError, type StoredBlob } from '../blob-store';
import { canonicalSessionId } from '../session-vault';
import { readJsonFile, syncFolderIfPresent, writeFileAtomic } from './atomic-file';

/**
 * A {@link BlobStore} in a local directory, one folder per session; a deleted session leaves a
 * tombstone in `deleted/`, written before its folder goes and checked after every put.
 */
export class LocalBlobStore implements BlobStore {
  constructor(private readonly directory: string) {}

  async put(sessionId: string, name: string, content: AsyncIterable<Uint8Array>): Promise<StoredBlob> {
    const folder = this.#folder(sessionId);
    const file = join(folder, checkBlobName(name));
    if (await this.#deleted(sessionId)) throw new SessionDataDeletedError(canonicalSessionId(sessionId));
    const hash = createHash('sha256');
    let sizeBytes = 0;
    await writeFileAtomic(
      file,
      (async function* measured() {
        for await (const chunk of content) {
          hash.update(chunk);
          sizeBytes += chunk.length;
          yield chunk;
        }
      })(),
    );
    // Deleted meanwhile: the tombstone was written before the folder went, so it is seen here.
    if (await this.#deleted(sessionId)) {
      await rm(folder, { recursive: true, force: true });
      throw new SessionDataDeletedError(canonicalSessionId(sessionId));
    }
    return { uri: pathToFileURL(file).href, sha256: hash.digest('hex'), sizeBytes };
  }

  async read(sessionId: string, name: string): Promise<AsyncIterable<Buffer> | undefined> {
    const file = join(this.#folder(sessionId), checkBlobName(name));
    try {
      await stat(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return createReadStream(file);
  }

  async deleteSession(sessionId: string): Promise<number> {
    const folder = this.#folder(sessionId);
    await writeFileAtomic(
      this.#tombstone(sessionId),
      JSON.stringify({ deletedAt: new Date().toISOString() }),
    );
    let count = 0;
    try {
      count = (await readdir(folder)).filter((name) => !name.endsWith('.tmp')).length;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await rm(folder, { recursive: true, force: true });
    await syncFolderIfPresent(this.directory);
    return count;
  }

  async #deleted(sessionId: string): Promise<boolean> {
    return (await readJsonFile(this.#tombstone(sessionId))) !== undefined;
  }

  #tombstone(sessionId: string): string {
    return join(this.directory, 'deleted', `${canonicalSessionId(sessionId)}.json`);
  }

  #folder(sessionId: string): string {
    return join(this.directory, canonicalSessionId(sessionId));
  }
}
