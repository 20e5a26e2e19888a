import { randomUUID } from 'node:crypto';
import { type FileHandle, link, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** What a file is written from: a whole value, or chunks as they come (a stream). */
export type FileContent = string | Buffer | AsyncIterable<Uint8Array>;

/**
 * Writes `content` to a new temporary file beside `path` (`<path>.<uuid>.tmp`), synced to disk;
 * resolves to its name. A failure (of the content too) removes it.
 */
async function writeTemporary(path: string, content: FileContent): Promise<string> {
  await makeFolderDurably(dirname(path));
  const temporary = `${path}.${randomUUID()}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    if (typeof content === 'string' || Buffer.isBuffer(content)) await handle.writeFile(content);
    else for await (const chunk of content) await writeAll(handle, chunk);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  return temporary;
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let offset = 0; offset < chunk.length;) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

/**
 * Folders whose name this process has synced into their parent, as every folder above them. A
 * folder another process removes and makes again is not synced again here: the one writer that
 * does (take-overs) syncs their parent itself. At most {@link DURABLE_FOLDERS_KEPT}, the oldest
 * forgotten first (a folder forgotten is synced again, nothing more).
 */
const durableFolders = new Set<string>();
const DURABLE_FOLDERS_KEPT = 10_000;
const NOT_OURS_TO_SYNC = new Set(['EACCES', 'EPERM', 'EROFS', 'EINVAL']);

function knownDurable(folder: string): void {
  durableFolders.add(folder);
  if (durableFolders.size > DURABLE_FOLDERS_KEPT)
    durableFolders.delete(durableFolders.values().next().value as string);
}

/**
 * Makes a folder and its missing parents, readable by their owner only, durably: a new folder's
 * name is an entry of its parent, lost in a crash (with everything written inside it) until that
 * parent is synced. A folder found made is synced into its parent all the same, once per process:
 * another process may have made it and not synced it yet.
 */
export async function makeFolderDurably(folder: string): Promise<void> {
  const target = resolve(folder);
  const made = await mkdir(target, { recursive: true, mode: 0o700 });
  const firstMade = made === undefined ? undefined : resolve(made);
  // Up from the folder: those made here whatever is known of them, then each not known durable.
  let madeHere = firstMade !== undefined;
  for (let entry = target; entry !== dirname(entry); entry = dirname(entry)) {
    if (!madeHere && durableFolders.has(entry)) return;
    try {
      await syncFolder(dirname(entry));
    } catch (error) {
      // A folder above those made here that this process may not read or sync (another owner's,
      // a read-only mount) is not the store's: the walk ends below it.
      const { code } = error as NodeJS.ErrnoException;
      if (!madeHere && code !== undefined && NOT_OURS_TO_SYNC.has(code)) return;
      throw error;
    }
    knownDurable(entry);
    if (entry === firstMade) madeHere = false;
  }
}

/** Syncs a folder, so a file created, renamed or removed in it survives a crash. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file readable only by its owner, atomically and durably: a temporary file synced,
 * renamed over the old one, then its folder synced. Once it resolves, a crash of the process or
 * the machine brings back neither the old content nor a half-written file.
 */
export async function writeFileAtomic(path: string, content: FileContent): Promise<void> {
  const temporary = await writeTemporary(path, content);
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncFolder(dirname(path));
}

/**
 * Creates a file only if none exists at `path` (a hard link appears whole and fails when the
 * name is taken), durably; false when it existed. Two processes racing: exactly one wins.
 */
export async function createFileExclusive(path: string, data: string | Buffer): Promise<boolean> {
  const temporary = await writeTemporary(path, data);
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  await syncFolder(dirname(path));
  return true;
}

/** Syncs a folder that may not exist (nothing was ever written there): absent, nothing. */
export async function syncFolderIfPresent(folder: string): Promise<void> {
  await syncFolder(folder).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  });
}

/** Removes a file (absent: nothing) and syncs its folder. */
export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncFolderIfPresent(dirname(path));
}

/** Reads a JSON file; undefined when it does not exist. */
export async function readJsonFile(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
