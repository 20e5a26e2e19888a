import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reachableCopy } from '../harness/postgres-copy';
import { requireReachable } from '../harness/postgres-run-as';

describe('the copy of PostgreSQL binaries its unprivileged user can reach', () => {
  let installDir: string;
  let copiesDir: string;
  beforeEach(async () => {
    installDir = await mkdtemp(join(tmpdir(), 'idv-private-install-'));
    for (const folder of ['bin', 'lib', 'share']) await mkdir(join(installDir, folder));
    await writeFile(join(installDir, 'bin', 'postgres'), 'server', { mode: 0o700 });
    await writeFile(join(installDir, 'lib', 'libicuuc.so.60.2'), 'library', { mode: 0o600 });
    await symlink('libicuuc.so.60.2', join(installDir, 'lib', 'libicuuc.so.60'));
    await writeFile(join(installDir, 'share', 'postgres.bki'), 'catalog', { mode: 0o600 });
    copiesDir = await mkdtemp(join(tmpdir(), 'idv-postgres-copies-'));
  });
  afterEach(async () => {
    await rm(installDir, { recursive: true, force: true });
    await rm(copiesDir, { recursive: true, force: true });
  });

  it('is one folder for concurrent runs, open to all for reading, links kept', async () => {
    const copies = await Promise.all([1, 2, 3].map(() => reachableCopy({ installDir, copiesDir })));
    expect(new Set(copies).size).toBe(1);
    const copy = copies[0]!;
    expect(await readdir(copiesDir)).toEqual([copy.slice(copiesDir.length + 1)]);
    const mode = async (path: string) => (await lstat(join(copy, path))).mode & 0o777;
    expect(await mode('.')).toBe(0o755);
    expect(await mode('lib')).toBe(0o755);
    expect(await mode('bin/postgres')).toBe(0o755);
    expect(await mode('share/postgres.bki')).toBe(0o644);
    expect(await readlink(join(copy, 'lib', 'libicuuc.so.60'))).toBe('libicuuc.so.60.2');
    expect(await readFile(join(copy, 'lib', 'libicuuc.so.60'), 'utf8')).toBe('library');
  });

  it('is made again when part of it has gone', async () => {
    const copy = await reachableCopy({ installDir, copiesDir });
    await rm(join(copy, 'lib', 'libicuuc.so.60.2'));
    await expect(reachableCopy({ installDir, copiesDir })).resolves.toBe(copy);
    expect(await readFile(join(copy, 'lib', 'libicuuc.so.60'), 'utf8')).toBe('library');
    expect(await readdir(copiesDir)).toHaveLength(1);
  });

  it('is another folder for other binaries', async () => {
    const copy = await reachableCopy({ installDir, copiesDir });
    await writeFile(join(installDir, 'bin', 'postgres'), 'another server');
    const other = await reachableCopy({ installDir, copiesDir });
    expect(other).not.toBe(copy);
    expect(await readFile(join(other, 'bin', 'postgres'), 'utf8')).toBe('another server');
  });

  it('is not taken from a folder of its name that others could change', async () => {
    const copy = await reachableCopy({ installDir, copiesDir });
    await chmod(copy, 0o777);
    await expect(reachableCopy({ installDir, copiesDir })).rejects.toThrow(
      `${copy} is in the way of the copy of PostgreSQL's binaries: it is not a folder of mode 0755`,
    );
  });
});

describe('a folder the server cannot reach', () => {
  it('is named, with why the server needs it', async () => {
    const owners = await mkdtemp(join(tmpdir(), 'idv-private-'));
    try {
      const nobody = { name: 'nobody', uid: 65534, gid: 65534 };
      expect(() => requireReachable(join(owners, 'data'), nobody, 'its data directory is there')).toThrow(
        `PostgreSQL runs as user nobody, which cannot enter ${owners}: its data directory is there`,
      );
      expect(() => requireReachable(tmpdir(), nobody, 'unused')).not.toThrow();
    } finally {
      await rm(owners, { recursive: true, force: true });
    }
  });
});
