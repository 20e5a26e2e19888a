import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { type IdvStore } from '../idv-store';
import { makeFolderDurably } from './atomic-file';
import { FileCompletionTimes } from './file-completion-times';
import { FileDataKeyStore } from './file-data-keys';
import { FileVerificationRecords } from './file-records';
import { FileSessionVault } from './file-session-vault';
import { LocalBlobStore } from './local-blob-store';

/**
 * The store in a local directory (`vault/`, `data-keys/`, `blobs/`, `records/`, `completion-times/`), readable by its owner only:
 * the embedded default, for the processes of one machine.
 */
export async function openLocalStore(directory: string): Promise<IdvStore> {
  await makeFolderDurably(directory);
  await chmod(directory, 0o700);
  return {
    description: `directory ${directory}`,
    vault: new FileSessionVault(join(directory, 'vault')),
    dataKeys: new FileDataKeyStore(join(directory, 'data-keys')),
    blobs: new LocalBlobStore(join(directory, 'blobs')),
    records: new FileVerificationRecords(join(directory, 'records')),
    completionTimes: new FileCompletionTimes(join(directory, 'completion-times')),
    close: () => Promise.resolve(),
  };
}
