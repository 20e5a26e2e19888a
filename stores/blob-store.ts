/** Where a stored blob is, and what it is. */
export interface StoredBlob {
  /** `file://…` in the directory store, `idv-store:blobs/<session>/<name>` in PostgreSQL. */
  uri: string;
  sha256: string;
  sizeBytes: number;
}

/** Stores attachments outside Temporal; a session's blobs are deleted together on redaction. */
export interface BlobStore {
  /**
   * Stores `content` as it arrives under the session's `name`, replacing a blob of that name:
   * all of it or, when the content fails midway, nothing (no partial blob is ever visible).
   * Refused ({@link SessionDataDeletedError}) once the session's blobs were deleted: a write
   * that comes after the redaction (an activity that outlived its verification) stores nothing.
   */
  put(sessionId: string, name: string, content: AsyncIterable<Uint8Array>): Promise<StoredBlob>;
  /** The blob's content, streamed; undefined when there is no such blob (never stored, or deleted). */
  read(sessionId: string, name: string): Promise<AsyncIterable<Buffer> | undefined>;
  /** Deletes every blob of a session for good (no later put stores one); resolves to how many there were. Idempotent. */
  deleteSession(sessionId: string): Promise<number>;
}

/** Thrown when a blob is put for a session whose blobs were deleted (redacted). */
export class SessionDataDeletedError extends Error {
  override readonly name = 'SessionDataDeletedError';
  constructor(sessionId: string) {
    super(`the stored data of session ${sessionId} was deleted (redacted): nothing more is stored for it`);
  }
}

const SAFE_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** A blob name safe as a file name: letters, digits, `.`, `_`, `-`, not starting with a dot. */
export function checkBlobName(name: string): string {
  if (!SAFE_NAME.test(name) || name.startsWith('.'))
    throw new Error(`unsafe blob name: ${String(JSON.stringify(name)).slice(0, 80)}`);
  return name;
}
