import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where each release's recorded histories live, one folder per release (`1.0.0/`, …). */
export const releasesDirectory = join(__dirname, 'releases');

/** The releases whose histories are recorded, oldest first. */
export function recordedReleases(): string[] {
  return readdirSync(releasesDirectory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}
