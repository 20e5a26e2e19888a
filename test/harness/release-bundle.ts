import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { failureConverterPath } from '../../codec/data-converter';

const run = promisify(execFile);
const projectRoot = resolve(__dirname, '..', '..');

/** The commit of each release whose workflows running verifications may still be pinned to. */
export const releaseCommits = { '1.0.0': 'dc15360' } as const;

/**
 * The workflow bundle of a release, built from the repository's history (its `package/workflows.ts`
 * at the release's commit, with today's dependencies): what a worker of that release runs.
 */
export async function releaseWorkflowBundle(release: keyof typeof releaseCommits): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `idv-release-${release}-`));
  try {
    const commit = releaseCommits[release];
    // Any owner's clone (CI may run as root in another's); a shallow one lacks the release.
    const git = ['-c', 'safe.directory=*', '-C', projectRoot];
    await run('git', [...git, 'cat-file', '-e', `${commit}^{commit}`]).catch(() => {
      throw new Error(`the repository's history lacks release ${release} (commit ${commit}): clone it whole`);
    });
    await run('/bin/sh', ['-c', 'git "$@" | tar -x -C "$0"', dir, ...git, 'archive', commit]);
    await symlink(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
    const bundle = await bundleWorkflowCode({
      workflowsPath: join(dir, 'package', 'workflows.ts'),
      failureConverterPath,
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    });
    return bundle.code;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
