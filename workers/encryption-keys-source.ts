import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type EncryptionKey,
  EncryptionKeysError,
  newEncryptionKeyEntry,
  parseEncryptionKeys,
} from '../codec/encryption-keys';
import { createFileExclusive } from '../stores/local/atomic-file';
import { ConfigError } from './config';

const DEV_KEYS_FILE = 'encryption-keys';

/** The keys `idv dev` keeps in its data dir (owner-only file); undefined when it has none. */
export async function readDevEncryptionKeys(dataDir: string): Promise<EncryptionKey[] | undefined> {
  let text: string;
  try {
    text = await readFile(join(dataDir, DEV_KEYS_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return parseEncryptionKeys(text, join(dataDir, DEV_KEYS_FILE));
  } catch (error) {
    if (error instanceof EncryptionKeysError) throw new ConfigError(error.message);
    throw error;
  }
}

/** The dev stack's keys, generated into the data dir on its first start. */
export async function devEncryptionKeys(dataDir: string): Promise<EncryptionKey[]> {
  const existing = await readDevEncryptionKeys(dataDir);
  if (existing) return existing;
  const entry = newEncryptionKeyEntry(`dev-${Date.now().toString(36)}`);
  // Whole and synced, or not there: a reader never sees half a file, and the keys that encrypt
  // the dev stack's history outlive a crash. Another process's made first: theirs stands.
  await createFileExclusive(join(dataDir, DEV_KEYS_FILE), `${entry}\n`);
  return (await readDevEncryptionKeys(dataDir)) as EncryptionKey[];
}

/**
 * The keys a process encrypts with: `IDV_ENCRYPTION_KEYS`, else those of the `idv dev` stack it
 * uses. Without either it refuses to start, with one line.
 */
export async function requireEncryptionKeys(
  configured: EncryptionKey[] | undefined,
  devDataDir: string | undefined,
): Promise<EncryptionKey[]> {
  const keys = configured ?? (devDataDir === undefined ? undefined : await readDevEncryptionKeys(devDataDir));
  if (keys) return keys;
  throw new ConfigError(
    'IDV_ENCRYPTION_KEYS is not set: every payload is encrypted; set it to <id>:<base64 32-byte key>[,…] (newest first), or use the stack of `idv dev`',
  );
}

/** The token of the dev stack's codec server, generated into the data dir (owner-only) on first start. */
export function devCodecToken(dataDir: string): Promise<string> {
  return devSecret(dataDir, 'codec-token');
}

/** The secret of the dev stack's receiver (the tenants' path tokens derive from it), made like the codec token. */
export function devReceiverSecret(dataDir: string): Promise<string> {
  return devSecret(dataDir, 'receiver-secret');
}

/** A random secret kept in an owner-only file of the data dir, made by whichever process needs it first. */
async function devSecret(dataDir: string, name: string): Promise<string> {
  const file = join(dataDir, name);
  await createFileExclusive(file, `${randomBytes(32).toString('hex')}\n`);
  return (await readFile(file, 'utf8')).trim();
}
