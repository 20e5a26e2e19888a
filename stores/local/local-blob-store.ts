import { createHash, randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where a stored blob is, and what it is. */
export interface StoredBlob {
  uri: string;
  sha256: string;
  sizeBytes: number;
}

/** Stores attachments outside Temporal; a session's blobs are deleted together on redaction. */
export interface BlobStore {
  /**
   * Stores `content` as it arrives under the session's `name`: all of it or, when the content
   * fails midway, nothing (no partial blob is ever visible).
   */
  put(sessionId: string, name: string, content: AsyncIterable<Uint8Array>): Promise<StoredBlob>;
  /** Deletes every blob of a session; resolves to how many there were. Idempotent. */
  deleteSession(sessionId: string): Promise<number>;
}

const SAFE_NAME = /^[A-Za-z0-9._-]+$/;

/** A {@link BlobStore} in a local directory, one folder per session. */
export class LocalBlobStore implements BlobStore {
  constructor(private readonly directory: string) {}

  async put(sessionId: string, name: string, content: AsyncIterable<Uint8Array>): Promise<StoredBlob> {
    const folder = this.#folder(sessionId);
    const file = join(folder, check(name));
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${randomUUID()}.tmp`;
    const hash = createHash('sha256');
    let sizeBytes = 0;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      for await (const chunk of content) {
        hash.update(chunk);
        sizeBytes += chunk.length;
        await writeAll(handle, chunk);
      }
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await handle.close();
    await rename(temporary, file);
    return { uri: pathToFileURL(file).href, sha256: hash.digest('hex'), sizeBytes };
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

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let offset = 0; offset < chunk.length;) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

function check(name: string): string {
  if (!SAFE_NAME.test(name) || name.startsWith('.')) throw new Error(`unsafe blob name: ${name}`);
  return name;
}
