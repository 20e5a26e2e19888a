import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { failureConverterPath } from '../../codec/data-converter';

const run = promisify(execFile);
const projectRoot = resolve(__dirname, '..', '..');

/** The bundler's logger for tests: errors only. */
export const quietBundleLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error: console.error,
};

/** The commit of each release whose workflows running verifications may still be pinned to. */
export const releaseCommits = { '1.0.0': 'dc15360508bb2713018fe65f28cc5e776db8f81e' } as const;

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
    const archive = join(dir, 'release.tar');
    await run('git', [...git, 'archive', '-o', archive, commit]).catch(
      (error: Error & { stderr?: string }) => {
        throw new Error(
          `cannot read release ${release} (commit ${commit}) from the repository's history (a shallow clone lacks it): ${error.stderr ?? error.message}`,
        );
      },
    );
    await run('tar', ['-x', '-f', archive, '-C', dir]);
    await symlink(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
    const bundle = await bundleWorkflowCode({
      workflowsPath: join(dir, 'package', 'workflows.ts'),
      failureConverterPath,
      logger: quietBundleLogger,
    });
    return bundle.code;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
